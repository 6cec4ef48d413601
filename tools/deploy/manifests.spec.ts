// What an operator checks before applying deploy/ to a cluster, checked on every commit without one:
// the files are what the generator writes, kubectl renders them to exactly what is checked here, every
// object is valid against the Kubernetes schemas, and the house rules hold in every overlay.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { APP_SPECS, APPS, GATEWAY_UPSTREAMS, JOB_TIME_ZONE, JOBS, type AppName } from './apps';
import { drift } from './generate';
import {
  COLLECTOR_CONFIG_FILE,
  COLLECTOR_NAME,
  DEPLOY_DIR,
  JOB_SCRIPT,
  ROOT,
  SCHEMA_REGISTRY_NAME,
  version,
  type K8sObject,
} from './manifests';
import { ENVIRONMENTS, mergePatch, overlay, render, type Environment } from './overlays';
import type { Finding } from './validate';

type Obj = K8sObject & Record<string, any>;

const NODE = process.execPath;
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

function find(objects: readonly Obj[], kind: string, name: string): Obj | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name);
}
function ofKind(objects: readonly Obj[], kind: string): Obj[] {
  return objects.filter((o) => o.kind === kind);
}
function podSpecOf(o: Obj): any {
  if (o.kind === 'CronJob') return o.spec.jobTemplate.spec.template.spec;
  return o.spec.template.spec;
}
function podLabelsOf(o: Obj): Record<string, string> {
  return o.kind === 'CronJob'
    ? o.spec.jobTemplate.spec.template.metadata.labels
    : o.spec.template.metadata.labels;
}
function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}
/** Kubernetes quantities in base units, enough for cpu (m) and memory (Mi, Gi). */
function quantity(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(m|Mi|Gi)?$/.exec(q);
  if (m === null) throw new Error(`unexpected quantity ${q}`);
  const n = Number(m[1]);
  return m[2] === 'm' ? n / 1000 : m[2] === 'Mi' ? n * 2 ** 20 : m[2] === 'Gi' ? n * 2 ** 30 : n;
}

const rendered: Record<Environment, Obj[]> = {
  dev: render('dev') as Obj[],
  prod: render('prod') as Obj[],
};

describe('deploy/ is generated, and kubectl renders it to what CI checks', () => {
  it('deploy/base and deploy/overlays are exactly what tools/deploy/generate.ts writes (run it after editing tools/deploy)', () => {
    expect(drift()).toEqual([]);
  });

  // Skipped where no kubectl is installed, unless REQUIRE_KUBECTL is set (CI installs one): then it fails.
  const kubectl =
    process.env['REQUIRE_KUBECTL'] !== undefined ||
    spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
  (kubectl ? it : it.skip).each(ENVIRONMENTS)(
    '`kubectl kustomize deploy/overlays/%s` yields the same objects as the TypeScript render',
    (env) => {
      const out = execFileSync('kubectl', ['kustomize', join(DEPLOY_DIR, 'overlays', env)], {
        encoding: 'utf8',
        maxBuffer: 64 * 2 ** 20,
      });
      const fromKubectl = parseAllDocuments(out).map((d) => d.toJS() as Obj);
      const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
      expect(fromKubectl.map(key).sort()).toEqual(rendered[env].map(key).sort());
      for (const o of rendered[env]) {
        const other = fromKubectl.find((k) => key(k) === key(o));
        if (!isDeepStrictEqual(other, o))
          throw new Error(`${key(o)} differs between kubectl kustomize and render()`);
      }
    },
  );

  it('renders the strategic merge of a container list item by name, as kustomize does', () => {
    const base = {
      containers: [
        {
          name: 'a',
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '2' },
          ],
          resources: { limits: { cpu: '1', memory: '1Gi' } },
        },
      ],
    };
    const patch = {
      containers: [
        { name: 'a', env: [{ name: 'X', value: '9' }], resources: { limits: { memory: '2Gi' } } },
      ],
    };
    expect(mergePatch(base, patch)).toEqual({
      containers: [
        {
          name: 'a',
          env: [
            { name: 'X', value: '9' },
            { name: 'Y', value: '2' },
          ],
          resources: { limits: { cpu: '1', memory: '2Gi' } },
        },
      ],
    });
  });
});

describe('every rendered object is valid against the Kubernetes schemas (offline)', () => {
  // kubernetes-models is ES modules only: the validator runs in its own Node process (validate.ts).
  function validate(args: string[], input?: string): Finding[] {
    const result = spawnSync(NODE, [TSX, join(__dirname, 'validate.ts'), ...args], {
      input,
      encoding: 'utf8',
      cwd: ROOT,
      timeout: 60_000,
    });
    if (result.status !== 0) throw new Error(`validate.ts failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as Finding[];
  }

  it.each(ENVIRONMENTS)('%s: every object validates', (env) => {
    const findings = validate([env]);
    expect(findings).toHaveLength(rendered[env].length);
    expect(findings.filter((f) => f.errors.length > 0)).toEqual([]);
  });

  it('the validator does reject a broken Deployment, a CronJob with a wrong policy and an unknown kind', () => {
    const broken = [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        spec: {
          replicas: 'two',
          selector: {},
          template: { spec: { containers: [{ image: 'x' }] } },
        },
      },
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'c' },
        spec: { schedule: '* * * * *', concurrencyPolicy: 'Sometimes', jobTemplate: {} },
      },
      { apiVersion: 'v1', kind: 'Widget', metadata: { name: 'w' } },
    ];
    const findings = validate(['-'], JSON.stringify(broken));
    expect(findings.map((f) => [f.object, f.errors.length > 0])).toEqual([
      ['Deployment/d', true],
      ['CronJob/c', true],
      ['Widget/w', true],
    ]);
    expect(findings[0]?.errors.join(' ')).toMatch(/replicas must be integer/);
  });
});

describe.each(ENVIRONMENTS)('house rules, %s overlay', (env) => {
  const objects = rendered[env];
  const o = overlay(env);

  it('every app has a Deployment, a Service, an autoscaling/v2 HPA on CPU and a PodDisruptionBudget that match one another', () => {
    for (const app of APPS) {
      const deployment = find(objects, 'Deployment', app);
      const service = find(objects, 'Service', app);
      const hpa = find(objects, 'HorizontalPodAutoscaler', app);
      const pdb = find(objects, 'PodDisruptionBudget', app);
      expect([app, Boolean(deployment), Boolean(service), Boolean(hpa), Boolean(pdb)]).toEqual([
        app,
        true,
        true,
        true,
        true,
      ]);
      const podLabels = podLabelsOf(deployment!);
      expect(selects(deployment!.spec.selector.matchLabels, podLabels)).toBe(true);
      expect(selects(service!.spec.selector, podLabels)).toBe(true);
      expect(selects(pdb!.spec.selector.matchLabels, podLabels)).toBe(true);
      expect(pdb!.spec.maxUnavailable ?? 0).toBeGreaterThanOrEqual(1); // a drain can always make progress
      expect(hpa!.apiVersion).toBe('autoscaling/v2');
      expect(hpa!.spec.scaleTargetRef).toEqual({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: app,
      });
      expect(hpa!.spec.metrics).toContainEqual(
        expect.objectContaining({
          type: 'Resource',
          resource: expect.objectContaining({ name: 'cpu' }),
        }),
      );
      // Several replicas (ARCHITECTURE.md, scaling out), so a PDB with maxUnavailable 1 keeps one serving.
      expect(hpa!.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa!.spec.maxReplicas).toBeGreaterThanOrEqual(hpa!.spec.minReplicas);
      // The HPA owns the replica count: a `replicas` in the Deployment would reset it at every apply.
      expect([app, deployment!.spec.replicas]).toEqual([app, undefined]);
      // The Service reaches a port the container declares.
      const ports = podSpecOf(deployment!).containers.flatMap((c: any) =>
        c.ports.map((p: any) => p.name),
      );
      for (const p of service!.spec.ports) expect(ports).toContain(p.targetPort);
    }
  });

  it('every Deployment probes a real check (startup, readiness, liveness), has requests and limits, runs non-root on a read-only root with /tmp in an emptyDir', () => {
    const deployments = ofKind(objects, 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(
      [...APPS, COLLECTOR_NAME, SCHEMA_REGISTRY_NAME].sort(),
    );
    for (const d of deployments) {
      const pod = podSpecOf(d);
      expect([d.metadata.name, pod.securityContext?.runAsNonRoot]).toEqual([d.metadata.name, true]);
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of pod.containers) {
        const where = `${d.metadata.name}/${c.name}`;
        for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
          expect([where, probe, typeof c[probe]?.httpGet?.path]).toEqual([where, probe, 'string']);
          expect(c.ports.map((p: any) => p.name)).toContain(c[probe].httpGet.port);
        }
        if ((APPS as readonly string[]).includes(d.metadata.name)) {
          const app = d.metadata.name as AppName;
          // Readiness checks the database and the broker; liveness (and startup) the process alone, so a Kafka
          // outage takes pods out of the Service and restarts none.
          expect([
            where,
            c.startupProbe.httpGet.path,
            c.readinessProbe.httpGet.path,
            c.livenessProbe.httpGet.path,
          ]).toEqual([where, '/livez', '/readyz', '/livez']);
          expect([where, APP_SPECS[app].healthPath]).toEqual([where, '/readyz']);
          // Migrations are the migrate Job's, not every pod start's.
          expect([where, c.env.find((e: any) => e.name === 'MIGRATE_ON_START')?.value]).toEqual([
            where,
            '0',
          ]);
        }
        // Liveness gives up later than readiness: a short database outage takes pods out, not down.
        expect(c.livenessProbe.periodSeconds * c.livenessProbe.failureThreshold).toBeGreaterThan(
          c.readinessProbe.periodSeconds * c.readinessProbe.failureThreshold,
        );
        for (const kind of ['requests', 'limits']) {
          for (const resource of ['cpu', 'memory'])
            expect([where, kind, resource, typeof c.resources?.[kind]?.[resource]]).toEqual([
              where,
              kind,
              resource,
              'string',
            ]);
        }
        for (const resource of ['cpu', 'memory'])
          expect(quantity(c.resources.requests[resource])).toBeLessThanOrEqual(
            quantity(c.resources.limits[resource]),
          );
        expect([where, c.securityContext]).toEqual([
          where,
          expect.objectContaining({
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
          }),
        ]);
        const tmp = c.volumeMounts.find((m: any) => m.mountPath === '/tmp');
        expect([where, pod.volumes.find((v: any) => v.name === tmp?.name)?.emptyDir]).toEqual([
          where,
          expect.any(Object),
        ]);
        expect(c.image).not.toMatch(/:latest$/);
      }
    }
  });

  it("Node's heap fits in each app's memory limit", () => {
    for (const app of APPS) {
      const c = podSpecOf(find(objects, 'Deployment', app)!).containers[0];
      const heap =
        Number(
          /--max-old-space-size=(\d+)/.exec(
            c.env.find((e: any) => e.name === 'NODE_OPTIONS').value,
          )?.[1],
        ) *
        2 ** 20;
      expect(heap).toBeLessThan(quantity(c.resources.limits.memory));
    }
  });

  it("every app's image carries the overlay's tag", () => {
    for (const app of APPS)
      expect(podSpecOf(find(objects, 'Deployment', app)!).containers[0].image).toBe(
        `pgw/${app}:${o.imageTag}`,
      );
    if (env === 'prod') expect(o.imageTag).toBe(version());
  });

  it('the five jobs of contract §5 and the two of the live rails run as CronJobs that never overlap, on São Paulo time, each POSTing its job to the gateway with the admin token from a Secret', () => {
    const cronJobs = ofKind(objects, 'CronJob');
    expect(cronJobs.map((c) => c.metadata.name).sort()).toEqual(
      [
        'receivables-release',
        'settlement-run',
        'authorization-expiry',
        'pix-expiry',
        'refund-reconciliation',
        'pix-payments',
        'boleto-exchange',
      ]
        .map((n) => `job-${n}`)
        .sort(),
    );
    const schedules = Object.fromEntries(cronJobs.map((c) => [c.metadata.name, c.spec.schedule]));
    expect(schedules).toEqual({
      'job-receivables-release': '5 0 * * *', // daily 00:05 BRT
      'job-settlement-run': '30 0 * * *', // daily, after the release
      'job-authorization-expiry': '10 * * * *', // hourly
      'job-pix-expiry': '* * * * *', // every minute
      'job-refund-reconciliation': '*/5 * * * *', // every 5 minutes
      'job-pix-payments': '* * * * *', // every minute: a lost PSP notification
      'job-boleto-exchange': '*/15 * * * *', // every 15 minutes: the bank's files
    });
    for (const c of cronJobs) {
      expect([c.metadata.name, c.spec.concurrencyPolicy, c.spec.timeZone]).toEqual([
        c.metadata.name,
        'Forbid',
        JOB_TIME_ZONE,
      ]);
      const pod = podSpecOf(c);
      expect(pod.restartPolicy).toBe('Never');
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(c.spec.jobTemplate.spec.activeDeadlineSeconds).toBeGreaterThan(0);
      const container = pod.containers[0];
      expect(container.securityContext).toEqual(
        expect.objectContaining({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        }),
      );
      expect(container.resources.limits).toEqual(
        expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
      );
      const envOf = Object.fromEntries(
        container.env.map((e: any) => [e.name, e.value ?? e.valueFrom]),
      );
      expect(envOf.JOB_NAME).toBe(c.metadata.name.replace(/^job-/, ''));
      expect(envOf.GATEWAY_URL).toBe('http://gateway:8080');
      expect(envOf.ADMIN_TOKEN).toEqual({
        secretKeyRef: { name: 'pgw-admin', key: 'ADMIN_TOKEN' },
      });
      expect(container.command).toEqual(['node', '-e', JOB_SCRIPT]);
      // A run stops before the next one is due, so Forbid never skips a schedule for a stuck run.
      expect(Number(envOf.JOB_TIMEOUT_MS)).toBeLessThan(
        c.spec.jobTemplate.spec.activeDeadlineSeconds * 1000,
      );
    }
    const pix = find(objects, 'CronJob', 'job-pix-expiry')!;
    expect(pix.spec.jobTemplate.spec.activeDeadlineSeconds).toBeLessThan(60);
  });

  it('the gateway has the URL of every service it routes to, each a Service of this overlay', () => {
    const env = podSpecOf(find(objects, 'Deployment', 'gateway')!).containers[0].env;
    for (const [variable, app] of Object.entries(GATEWAY_UPSTREAMS)) {
      expect(env).toContainEqual({ name: variable, value: `http://${app}:8080` });
      expect(find(objects, 'Service', app)).toBeDefined();
    }
  });

  it('every Secret and ConfigMap a pod refers to is named in docs/runbook.md; ConfigMap keys exist', () => {
    const runbook = readFileSync(join(ROOT, 'docs', 'runbook.md'), 'utf8');
    const pods = [
      ...ofKind(objects, 'Deployment'),
      ...ofKind(objects, 'CronJob'),
      ...ofKind(objects, 'Job'),
    ];
    for (const workload of pods) {
      for (const c of podSpecOf(workload).containers) {
        for (const e of c.env ?? []) {
          const secret = e.valueFrom?.secretKeyRef;
          if (secret !== undefined)
            expect([secret.name, runbook.includes(`\`${secret.name}\``)]).toEqual([
              secret.name,
              true,
            ]);
          const cm = e.valueFrom?.configMapKeyRef;
          if (cm !== undefined)
            expect(Object.keys(find(objects, 'ConfigMap', cm.name)?.data ?? {})).toContain(cm.key);
        }
        for (const from of c.envFrom ?? [])
          expect(find(objects, 'ConfigMap', from.configMapRef.name)).toBeDefined();
      }
    }
  });

  it('no secret value is written in a pod spec or a ConfigMap; Secrets exist only in the dev overlay, and there they cover every reference', () => {
    const secretLike = /SECRET|TOKEN|PASSWORD|KEK|_KEY$|DATABASE_URL/;
    for (const workload of [
      ...ofKind(objects, 'Deployment'),
      ...ofKind(objects, 'CronJob'),
      ...ofKind(objects, 'Job'),
    ]) {
      for (const c of podSpecOf(workload).containers) {
        for (const e of c.env ?? [])
          if (secretLike.test(e.name))
            expect([workload.metadata.name, e.name, e.value]).toEqual([
              workload.metadata.name,
              e.name,
              undefined,
            ]);
      }
    }
    for (const cm of ofKind(objects, 'ConfigMap'))
      for (const key of Object.keys(cm.data)) expect(key).not.toMatch(secretLike);
    const secrets = ofKind(objects, 'Secret');
    if (env !== 'dev') {
      expect(secrets).toEqual([]);
      return;
    }
    for (const s of secrets)
      expect(s.metadata.annotations?.['pgw/placeholder']).toMatch(/dev only/);
    for (const workload of [
      ...ofKind(objects, 'Deployment'),
      ...ofKind(objects, 'CronJob'),
      ...ofKind(objects, 'Job'),
    ]) {
      for (const c of podSpecOf(workload).containers) {
        for (const e of c.env ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (ref === undefined) continue;
          expect([
            ref.name,
            ref.key,
            ref.key in (find(secrets, 'Secret', ref.name)?.stringData ?? {}),
          ]).toEqual([ref.name, ref.key, true]);
        }
      }
    }
  });

  it('network policies: only the gateway and the calling peers reach a service; the collector takes only our pods', () => {
    const policies = ofKind(objects, 'NetworkPolicy').filter((p) =>
      p.spec.policyTypes.includes('Ingress'),
    );
    const labelsOf = (name: string): Record<string, string> =>
      podLabelsOf(find(objects, 'Deployment', name)!);
    const matches = (sel: any, labels: Record<string, string>): boolean =>
      selects(sel.matchLabels ?? {}, labels) &&
      (sel.matchExpressions ?? []).every(
        (x: any) => x.operator === 'In' && x.values.includes(labels[x.key]),
      );
    /** Whether a pod labelled `from` may open `port` on pods of `to`, under every policy that selects `to`. */
    const allowed = (from: Record<string, string>, to: string, port: number): boolean => {
      const applying = policies.filter((p) => matches(p.spec.podSelector, labelsOf(to)));
      if (applying.length === 0) return true;
      return applying.some((p) =>
        (p.spec.ingress ?? []).some(
          (rule: any) =>
            (rule.ports ?? []).some((pt: any) => pt.port === port) &&
            (rule.from === undefined ||
              rule.from.some((f: any) => f.podSelector && matches(f.podSelector, from))),
        ),
      );
    };
    // A default deny selects every pod of ours: a pod no allow rule names is unreachable.
    for (const name of [...APPS, COLLECTOR_NAME, SCHEMA_REGISTRY_NAME])
      expect([
        name,
        policies.some(
          (p) => (p.spec.ingress ?? []).length === 0 && matches(p.spec.podSelector, labelsOf(name)),
        ),
      ]).toEqual([name, true]);
    const outsider = { 'app.kubernetes.io/name': 'intruder' };
    expect(allowed(outsider, 'gateway', 8080)).toBe(true); // the public door
    for (const app of APPS.filter((a) => a !== 'gateway')) {
      expect([app, allowed(labelsOf('gateway'), app, 8080)]).toEqual([app, true]);
      expect([app, allowed(outsider, app, 8080)]).toEqual([app, false]);
    }
    expect(allowed(labelsOf('charges'), 'vault', 8080)).toBe(true);
    expect(allowed(labelsOf('charges'), 'acquirer-sim', 8080)).toBe(true);
    expect(allowed(labelsOf('vault'), 'acquirer-sim', 8080)).toBe(true);
    expect(allowed(labelsOf('webhooks'), 'vault', 8080)).toBe(false);
    expect(allowed(labelsOf('ledger'), 'charges', 8080)).toBe(false);
    expect(allowed(labelsOf('charges'), COLLECTOR_NAME, 4318)).toBe(true);
    expect(allowed(outsider, COLLECTOR_NAME, 4318)).toBe(false);
    // Every app registers and reads its events' schemas; nothing else reaches the registry.
    for (const app of APPS)
      expect([app, allowed(labelsOf(app), SCHEMA_REGISTRY_NAME, 8080)]).toEqual([app, true]);
    expect(allowed(outsider, SCHEMA_REGISTRY_NAME, 8080)).toBe(false);
  });

  it('egress: the vault and charges reach only DNS, PostgreSQL, Kafka, the collector and their peers; webhooks the internet but no cluster or private range', () => {
    const egress = (app: string): any[] => {
      const applying = ofKind(objects, 'NetworkPolicy').filter(
        (p) =>
          p.spec.policyTypes.includes('Egress') &&
          selects(
            p.spec.podSelector.matchLabels ?? {},
            podLabelsOf(find(objects, 'Deployment', app)!),
          ),
      );
      expect([app, applying.length]).toEqual([app, 1]);
      return applying[0]!.spec.egress;
    };
    const peerNames = (rules: any[]): string[] =>
      rules
        .flatMap((r) =>
          (r.to ?? []).flatMap(
            (t: any) => t.podSelector?.matchExpressions?.flatMap((x: any) => x.values) ?? [],
          ),
        )
        .sort();
    const portsOpenToAll = (rules: any[]): number[] =>
      rules
        .filter((r) => r.to === undefined)
        .flatMap((r) => r.ports.map((p: any) => p.port))
        .sort();
    for (const app of ['vault', 'charges'] as const) {
      const rules = egress(app);
      // Only PostgreSQL and Kafka by port; everything else names its destination.
      expect([app, portsOpenToAll(rules)]).toEqual([app, [5432, 9092]]);
      expect([app, peerNames(rules)]).toEqual([
        app,
        [...new Set(Object.values(APP_SPECS[app].peers))].sort(),
      ]);
      expect([
        app,
        rules.some((r) => (r.to ?? []).some((t: any) => t.ipBlock !== undefined)),
      ]).toEqual([app, false]);
    }
    const webhooks = egress('webhooks');
    const blocks = webhooks.flatMap((r) => (r.to ?? []).map((t: any) => t.ipBlock).filter(Boolean));
    expect(blocks).toEqual([
      {
        cidr: '0.0.0.0/0',
        except: expect.arrayContaining([
          '10.0.0.0/8',
          '172.16.0.0/12',
          '192.168.0.0/16',
          '169.254.0.0/16',
          '127.0.0.0/8',
          '100.64.0.0/10',
        ]),
      },
      { cidr: '::/0', except: expect.arrayContaining(['fc00::/7', 'fe80::/10', '::1/128']) },
    ]);
    expect(peerNames(webhooks)).toEqual([]);
  });

  it('every app has a migrate Job of its own image (`node dist/main.js migrate`) under its migration role, named for the release', () => {
    for (const app of APPS) {
      const jobs = ofKind(objects, 'Job').filter(
        (j) => j.metadata.annotations?.['pgw/migrates'] === app,
      );
      expect([app, jobs.length]).toEqual([app, 1]);
      const c = podSpecOf(jobs[0]!).containers[0];
      expect([app, c.image.replace(/:.*$/, ''), c.command]).toEqual([
        app,
        `pgw/${app}`,
        ['node', 'dist/main.js', 'migrate'],
      ]);
      expect(c.env).toContainEqual({
        name: 'DATABASE_URL',
        valueFrom: { secretKeyRef: { name: `pgw-${app}-db-migrate`, key: 'DATABASE_URL' } },
      });
      expect(jobs[0]!.metadata.name).toBe(`${app}-migrate-${version().replace(/\./g, '-')}`);
      // The app itself runs under the role without DDL.
      const appEnv = podSpecOf(find(objects, 'Deployment', app)!).containers[0].env;
      expect(appEnv.find((e: any) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef.name).toBe(
        `pgw-${app}-db`,
      );
    }
  });

  it('the gateway is reachable from outside through an Ingress with TLS from a named Secret, routing the API and the operator API only', () => {
    const ingresses = ofKind(objects, 'Ingress');
    expect(ingresses.map((i) => i.metadata.name)).toEqual(['gateway']);
    const spec = ingresses[0]!.spec;
    expect(spec.tls).toEqual([{ hosts: [spec.rules[0].host], secretName: 'pgw-gateway-tls' }]);
    expect(
      spec.rules[0].http.paths.map((p: any) => [
        p.path,
        p.backend.service.name,
        p.backend.service.port.name,
      ]),
    ).toEqual([
      ['/api/v1', 'gateway', 'http'],
      ['/admin/v1', 'gateway', 'http'],
    ]);
    expect(readFileSync(join(ROOT, 'docs', 'runbook.md'), 'utf8')).toContain('`pgw-gateway-tls`');
  });

  it('topics and the production marker come from the ConfigMap: prod 3 replicas, 2 in sync, DEPLOYMENT_ENV=production', () => {
    const data = find(objects, 'ConfigMap', 'pgw-config')!.data;
    const topic = [
      data.KAFKA_PARTITIONS,
      data.KAFKA_REPLICATION_FACTOR,
      data.KAFKA_MIN_INSYNC_REPLICAS,
    ];
    expect(topic).toEqual(env === 'prod' ? ['3', '3', '2'] : ['3', '1', '1']);
    expect(data.DEPLOYMENT_ENV).toBe(env === 'prod' ? 'production' : undefined);
  });

  it("the apps find the events' schema registry from the ConfigMap: this overlay's registry Service, on PostgreSQL storage from a Secret", () => {
    const url = new URL(find(objects, 'ConfigMap', 'pgw-config')!.data.SCHEMA_REGISTRY_URL);
    expect(url.pathname).toBe('/apis/ccompat/v7');
    const service = find(objects, 'Service', url.hostname)!;
    expect(service.spec.ports.map((p: any) => p.port)).toContain(Number(url.port));
    const container = podSpecOf(find(objects, 'Deployment', SCHEMA_REGISTRY_NAME)!).containers[0];
    expect(container.env.find((e: any) => e.name === 'APICURIO_STORAGE_SQL_KIND')?.value).toBe(
      'postgresql',
    );
    for (const name of [
      'APICURIO_DATASOURCE_URL',
      'APICURIO_DATASOURCE_USERNAME',
      'APICURIO_DATASOURCE_PASSWORD',
    ]) {
      expect([
        name,
        container.env.find((e: any) => e.name === name)?.valueFrom?.secretKeyRef?.name,
      ]).toEqual([name, 'pgw-schema-registry-db']);
    }
  });
});

describe('the jobs trigger script', () => {
  async function runJob(
    env: Record<string, string>,
    status: number,
  ): Promise<{
    code: number | null;
    request: { method?: string; url?: string; auth?: string; body: string } | null;
    stdout: string;
  }> {
    let request: { method?: string; url?: string; auth?: string; body: string } | null = null;
    const server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        request = { method: req.method, url: req.url, auth: req.headers.authorization, body };
        res
          .writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_test' })
          .end(JSON.stringify({ job: env.JOB_NAME, processed: 3 }));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    try {
      const child = spawn(NODE, ['-e', JOB_SCRIPT], {
        env: {
          PATH: process.env.PATH ?? '',
          GATEWAY_URL: `http://127.0.0.1:${port}`,
          ADMIN_TOKEN: 'tok',
          JOB_TIME_ZONE,
          JOB_TIMEOUT_MS: '5000',
          ...env,
        },
      });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      return { code, request, stdout };
    } finally {
      server.close();
    }
  }

  it("POSTs /admin/v1/jobs/{name} with the bearer token and today's São Paulo date for daily jobs, and succeeds on 200", async () => {
    const run = await runJob({ JOB_NAME: 'receivables-release', SEND_AS_OF_DATE: '1' }, 200);
    expect(run.code).toBe(0);
    expect(run.request).toEqual({
      method: 'POST',
      url: '/admin/v1/jobs/receivables-release',
      auth: 'Bearer tok',
      body: expect.any(String),
    });
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: JOB_TIME_ZONE }).format(new Date());
    expect(JSON.parse(run.request!.body)).toEqual({ as_of_date: today });
    expect(JSON.parse(run.stdout)).toEqual(
      expect.objectContaining({ job: 'receivables-release', status: 200, request_id: 'req_test' }),
    );
  });

  it('sends no date for the frequent jobs, and fails the Job (exit 1) when the gateway does not answer 2xx', async () => {
    const run = await runJob({ JOB_NAME: 'pix-expiry', SEND_AS_OF_DATE: '0' }, 503);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.request!.body)).toEqual({});
  });

  it('every job of apps.ts is sent to its owner by the gateway (routes.table.ts JOB_OWNERS)', () => {
    const table = readFileSync(join(ROOT, 'apps', 'gateway', 'src', 'routes.table.ts'), 'utf8');
    for (const job of JOBS) expect(table).toMatch(new RegExp(`'${job.name}': '${job.owner}'`));
  });
});

describe('the OpenTelemetry collector configuration (deploy/otel-collector.yaml)', () => {
  const config = parse(readFileSync(COLLECTOR_CONFIG_FILE, 'utf8')) as any;

  it('receives OTLP on the ports the services and the Service use, and exports traces to the configured backend', () => {
    expect(config.receivers.otlp.protocols.http.endpoint).toMatch(/:4318$/);
    expect(config.receivers.otlp.protocols.grpc.endpoint).toMatch(/:4317$/);
    const traces = config.service.pipelines.traces;
    expect(traces.receivers).toContain('otlp');
    expect(traces.exporters.map((e: string) => config.exporters[e]?.endpoint)).toContain(
      '${env:TRACES_BACKEND_ENDPOINT}',
    );
    expect(traces.processors[0]).toBe('memory_limiter');
  });

  it('answers its probes on the health_check port and serves metrics where the Service points', () => {
    expect(config.service.extensions).toContain('health_check');
    expect(config.extensions.health_check.endpoint).toMatch(/:13133$/);
    expect(config.exporters.prometheus.endpoint).toMatch(/:8889$/);
    const deployment = find(rendered.prod, 'Deployment', COLLECTOR_NAME)!;
    const ports = podSpecOf(deployment).containers[0].ports.map((p: any) => p.containerPort);
    expect(ports).toEqual(expect.arrayContaining([4317, 4318, 8889, 13133]));
    expect(find(rendered.prod, 'ConfigMap', `${COLLECTOR_NAME}-config`)?.data['config.yaml']).toBe(
      readFileSync(COLLECTOR_CONFIG_FILE, 'utf8'),
    );
  });
});

describe('tail sampling: errors and slow requests always kept at the collector (checked, not run)', () => {
  const config = parse(readFileSync(COLLECTOR_CONFIG_FILE, 'utf8')) as any;
  const tail = config.processors.tail_sampling;
  const policies = (tail?.policies ?? []) as Array<Record<string, any>>;
  const policy = (type: string) => policies.find((p) => p.type === type)?.[type];

  it('the traces pipeline samples by tail, after memory_limiter and before batch, and only traces', () => {
    // Proves the collector sees each trace whole before deciding, and refuses spans before it runs out of memory.
    const traces = config.service.pipelines.traces.processors as string[];
    expect(traces[0]).toBe('memory_limiter');
    expect(traces.indexOf('tail_sampling')).toBeGreaterThan(0);
    expect(traces.indexOf('batch')).toBeGreaterThan(traces.indexOf('tail_sampling'));
    for (const signal of ['metrics', 'logs'])
      expect(config.service.pipelines[signal].processors).not.toContain('tail_sampling');
    expect(tail.decision_wait).toMatch(/^\d+s$/);
  });

  it('keeps every trace with an error, every trace slower than the charge latency SLO, and a share of the rest', () => {
    // Proves the traces an SRE opens at 3 a.m. (a failure, a latency burn) are never sampled away.
    expect(policies.every((p) => typeof p.name === 'string' && p[p.type] !== undefined)).toBe(true);
    expect(policy('status_code')).toEqual({ status_codes: ['ERROR'] });
    // The SLO counts a charge as slow above the le="1" bucket (1 s): the rules and the policy say the same.
    const slo = readFileSync(join(DEPLOY_DIR, 'observability', 'rules', 'slo.rules.yaml'), 'utf8');
    const le = /http_server_request_duration_seconds_bucket\{[^}]*le=~"([\d.]+)\|/.exec(slo)?.[1];
    expect(policy('latency')?.threshold_ms).toBe(Number(le) * 1000);
    expect(policy('latency')?.upper_threshold_ms).toBeUndefined();
    const share = policy('probabilistic')?.sampling_percentage;
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThan(100);
    // Nothing else: no policy that would keep everything (and make the sampling moot) or drop anything.
    expect(policies.map((p) => p.type).sort()).toEqual(['latency', 'probabilistic', 'status_code']);
  });

  it('every service sends every span (parent-based, always on), in compose and in both overlays', () => {
    // Proves a head sampler does not drop what the collector has still to decide on.
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), {
      merge: true,
    }) as { services: Record<string, { environment?: Record<string, string> }> };
    for (const app of APPS)
      expect([app, compose.services[app]?.environment?.OTEL_TRACES_SAMPLER]).toEqual([
        app,
        'parentbased_always_on',
      ]);
    for (const env of ENVIRONMENTS) {
      const data = find(rendered[env], 'ConfigMap', 'pgw-config')!.data;
      expect([env, data.OTEL_TRACES_SAMPLER, data.OTEL_TRACES_SAMPLER_ARG]).toEqual([
        env,
        'parentbased_always_on',
        undefined,
      ]);
      for (const app of APPS) {
        const container = podSpecOf(find(rendered[env], 'Deployment', app)!).containers[0];
        expect(container.envFrom).toContainEqual({ configMapRef: { name: 'pgw-config' } });
        expect(
          (container.env as Array<{ name: string }>).filter((e) =>
            e.name.startsWith('OTEL_TRACES_SAMPLER'),
          ),
        ).toEqual([]);
      }
    }
  });

  it('one collector replica, so that every span of a trace reaches the collector that decides on it', () => {
    // Proves no trace is split between two samplers, each deciding on half of it.
    for (const env of ENVIRONMENTS) {
      expect([env, find(rendered[env], 'Deployment', COLLECTOR_NAME)!.spec.replicas]).toEqual([
        env,
        1,
      ]);
      expect(
        ofKind(rendered[env], 'HorizontalPodAutoscaler').filter(
          (h) => h.spec.scaleTargetRef.name === COLLECTOR_NAME,
        ),
      ).toEqual([]);
    }
  });
});

describe('no literal Secret outside the dev overlay', () => {
  it('no file of the repository but deploy/overlays/dev defines a Kubernetes Secret', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        if (
          [
            'node_modules',
            '.git',
            '.cache',
            '.data',
            '.nx',
            'dist',
            'coverage',
            'lib',
            'run',
          ].includes(entry)
        )
          continue;
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.ya?ml$/.test(entry) && /^kind:\s*Secret\s*$/m.test(readFileSync(path, 'utf8')))
          offenders.push(relative(ROOT, path));
      }
    };
    walk(ROOT);
    expect(offenders).toEqual(['deploy/overlays/dev/secrets.yaml']);
  });
});
