// The Kubernetes objects of the payment gateway, built in TypeScript so that the compiler checks every
// field name against the Kubernetes API types (kubernetes-models) and one table (apps.ts) drives every app.
// `generate.ts` writes them to deploy/ as a kustomize base and overlays; `render.ts` renders an overlay
// without kubectl; the spec validates the result against the Kubernetes schemas and the house rules.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { ICronJob } from 'kubernetes-models/batch/v1/CronJob';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { INetworkPolicyEgressRule } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicyEgressRule';
import type { INetworkPolicyIngressRule } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicyIngressRule';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { INamespace } from 'kubernetes-models/v1/Namespace';
import type { IPodSecurityContext } from 'kubernetes-models/v1/PodSecurityContext';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { ISecurityContext } from 'kubernetes-models/v1/SecurityContext';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { parse } from 'yaml';
import {
  ACQUIRER_KEY_SECRET_NAME,
  ADMIN_SECRET_NAME,
  APP_PORT,
  APP_SPECS,
  APPS,
  callersOf,
  databaseSecretName,
  GATEWAY_TLS_SECRET_NAME,
  LIVENESS_PATH,
  migrationSecretName,
  JOB_TIME_ZONE,
  JOBS,
  PRINCIPAL_SECRET_NAME,
  PRINCIPAL_SIGNING_SECRET_NAME,
  VAULT_KEYS_SECRET_NAME,
  type AppName,
  type JobSpec,
} from './apps';

export const ROOT = join(__dirname, '..', '..');
export const DEPLOY_DIR = join(ROOT, 'deploy');

/** Any Kubernetes object: what the renderer, the files and the checks pass around. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

export const PART_OF = 'payment-gateway';
export const CONFIG_MAP_NAME = 'pgw-config';
export const COLLECTOR_NAME = 'otel-collector';
export const COLLECTOR_IMAGE = 'otel/opentelemetry-collector-contrib:0.115.0';
/** The collector tail-samples traces: all of a trace's spans must reach one replica (deploy/README.md). */
export const COLLECTOR_REPLICAS = 1;
/** The collector's configuration, shared with docker-compose (mounted there, embedded here). */
export const COLLECTOR_CONFIG_FILE = join(DEPLOY_DIR, 'otel-collector.yaml');
/** The uid/gid of the `node` user of the official Node images (the Dockerfile's USER). */
export const APP_UID = 1000;
/** The collector image's own unprivileged user. */
export const COLLECTOR_UID = 10001;
/** The events' schema registry (Apicurio, Confluent-compatible API at /apis/ccompat/v7): tools/registry's version. */
export const SCHEMA_REGISTRY_NAME = 'schema-registry';
export const SCHEMA_REGISTRY_IMAGE = 'apicurio/apicurio-registry:3.3.3';
export const SCHEMA_REGISTRY_PORT = 8080;
/** Its JDBC URL, user and password on the platform's PostgreSQL, where its schemas (and so their ids) live. */
export const SCHEMA_REGISTRY_DB_SECRET_NAME = 'pgw-schema-registry-db';
/** The registry image's unprivileged user (the Quarkus JVM image's). */
export const SCHEMA_REGISTRY_UID = 185;

export function version(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** The image of an app: overlays replace the tag (kustomize `images:`); the release pipeline pins a digest. */
export function imageName(app: AppName): string {
  return `pgw/${app}`;
}

function labels(name: string, component: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/part-of': PART_OF,
    'app.kubernetes.io/component': component,
  };
}
function selector(name: string): Record<string, string> {
  return { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': PART_OF };
}

export const CONTAINER_SECURITY: ISecurityContext = {
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  privileged: false,
  capabilities: { drop: ['ALL'] },
};

function podSecurity(uid: number): IPodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: uid,
    fsGroup: uid,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

const TMP_VOLUME = { name: 'tmp', emptyDir: { sizeLimit: '64Mi' } };
const TMP_MOUNT = { name: 'tmp', mountPath: '/tmp' };

/** Per-app sizes of the base; overlays patch them. Node's heap is kept under the memory limit. */
export interface Sizing {
  requests: { cpu: string; memory: string };
  limits: { cpu: string; memory: string };
  minReplicas: number;
  maxReplicas: number;
}
export const BASE_SIZING: Sizing = {
  requests: { cpu: '100m', memory: '192Mi' },
  limits: { cpu: '1', memory: '512Mi' },
  minReplicas: 2,
  maxReplicas: 6,
};

/** The V8 heap for a memory limit: three quarters of it, so buffers and native memory fit beside it. */
export function heapMegabytes(memoryLimit: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(memoryLimit);
  if (match === null) throw new Error(`memory limit ${memoryLimit} must be in Mi or Gi`);
  const mebibytes = Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
  return Math.floor(mebibytes * 0.75);
}

function secretEnv(variable: string, secret: string, key: string, optional = false): IEnvVar {
  return {
    name: variable,
    valueFrom: { secretKeyRef: { name: secret, key, ...(optional ? { optional: true } : {}) } },
  };
}

function httpProbe(
  path: string,
  port: string,
  periodSeconds: number,
  timeoutSeconds: number,
  failureThreshold: number,
): IProbe {
  return { httpGet: { path, port }, periodSeconds, timeoutSeconds, failureThreshold };
}

/**
 * The three probes every container of ours has, with the same timings: startup every 2 s (up to
 * `startupFailures` tries), readiness every 5 s (out of the Service after 10 s), liveness every 10 s
 * (restarted after a minute).
 */
function probes(p: {
  port: string;
  started: string;
  ready: string;
  live: string;
  startupFailures: number;
}): Pick<IContainer, 'startupProbe' | 'readinessProbe' | 'livenessProbe'> {
  return {
    startupProbe: httpProbe(p.started, p.port, 2, 2, p.startupFailures),
    readinessProbe: httpProbe(p.ready, p.port, 5, 2, 2),
    livenessProbe: httpProbe(p.live, p.port, 10, 3, 6),
  };
}

/** A ClusterIP Service in front of `name`'s pods, each port by the container port's name. */
function clusterService(
  name: string,
  component: string,
  ports: ReadonlyArray<readonly [string, number]>,
): IService {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels: labels(name, component) },
    spec: {
      type: 'ClusterIP',
      selector: selector(name),
      ports: ports.map(([port, number]) => ({
        name: port,
        port: number,
        targetPort: port,
        protocol: 'TCP',
      })),
    },
  };
}

/** Every app but the gateway checks the principal the gateway signs. */
function verifiesPrincipals(app: AppName): boolean {
  return app !== 'gateway';
}

export function appContainer(app: AppName, sizing: Sizing): IContainer {
  const spec = APP_SPECS[app];
  const env: IEnvVar[] = [
    // First: overlays patch it, and a strategic merge puts patched items first.
    { name: 'NODE_OPTIONS', value: `--max-old-space-size=${heapMegabytes(sizing.limits.memory)}` },
    { name: 'PORT', value: String(APP_PORT) },
    { name: 'OTEL_SERVICE_NAME', value: app },
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    {
      name: 'OTEL_RESOURCE_ATTRIBUTES',
      value: 'k8s.pod.name=$(POD_NAME),k8s.namespace.name=$(POD_NAMESPACE)',
    },
    // The schema is migrated by the app's migrate Job (migrateJob below), under a role this pod lacks.
    { name: 'MIGRATE_ON_START', value: '0' },
    ...Object.entries(spec.settings).map(([name, value]) => ({ name, value })),
    ...Object.entries(spec.peers).map(([name, peer]) => ({
      name,
      value: `http://${peer}:${APP_PORT}`,
    })),
    secretEnv('DATABASE_URL', databaseSecretName(app), 'DATABASE_URL'),
    // The gateway alone signs principals (its private key); services verify them with the public key and,
    // during a rotation, the previous one too (left blank otherwise). No service holds a signing key.
    ...(verifiesPrincipals(app)
      ? [
          secretEnv('PRINCIPAL_PUBLIC_KEY', PRINCIPAL_SECRET_NAME, 'PRINCIPAL_PUBLIC_KEY'),
          secretEnv(
            'PRINCIPAL_PUBLIC_KEY_PREVIOUS',
            PRINCIPAL_SECRET_NAME,
            'PRINCIPAL_PUBLIC_KEY_PREVIOUS',
            true,
          ),
        ]
      : [
          secretEnv(
            'PRINCIPAL_PRIVATE_KEY',
            PRINCIPAL_SIGNING_SECRET_NAME,
            'PRINCIPAL_PRIVATE_KEY',
          ),
        ]),
    ...spec.secrets.map((s) => secretEnv(s.variable, s.secret, s.key, s.optional === true)),
  ];
  return {
    name: app,
    image: `${imageName(app)}:${version()}`,
    imagePullPolicy: 'IfNotPresent',
    ports: [{ name: 'http', containerPort: APP_PORT, protocol: 'TCP' }],
    envFrom: [{ configMapRef: { name: CONFIG_MAP_NAME } }],
    env,
    resources: { requests: { ...sizing.requests }, limits: { ...sizing.limits } },
    // Startup: until the port opens (consumers subscribed); up to 3 minutes. Readiness (/readyz): out of the
    // Service after 10 s without the database or the broker. Liveness (/livez): the process alone, so a
    // database or Kafka outage takes pods out of the Service and restarts none; only a hung process restarts.
    ...probes({
      port: 'http',
      started: LIVENESS_PATH,
      ready: spec.healthPath,
      live: LIVENESS_PATH,
      startupFailures: 90,
    }),
    // The endpoint leaves the Service before the process stops accepting: no request lands on a closing pod.
    lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
    securityContext: CONTAINER_SECURITY,
    volumeMounts: [TMP_MOUNT],
  };
}

export function appDeployment(app: AppName, sizing: Sizing = BASE_SIZING): IDeployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: app, labels: labels(app, 'service') },
    // No `replicas`: the HPA owns the count (an apply would otherwise reset it to the manifest's).
    spec: {
      revisionHistoryLimit: 5,
      selector: { matchLabels: selector(app) },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
      template: {
        metadata: { labels: labels(app, 'service') },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 40,
          securityContext: podSecurity(APP_UID),
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'topology.kubernetes.io/zone',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: selector(app) },
            },
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: selector(app) },
            },
          ],
          containers: [appContainer(app, sizing)],
          volumes: [TMP_VOLUME],
        },
      },
    },
  };
}

export function appService(app: AppName): IService {
  return clusterService(app, 'service', [['http', APP_PORT]]);
}

export function appAutoscaler(
  app: AppName,
  sizing: Sizing = BASE_SIZING,
): IHorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: app, labels: labels(app, 'service') },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: app },
      minReplicas: sizing.minReplicas,
      maxReplicas: sizing.maxReplicas,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
        },
      ],
      // Up fast, down slowly: a burst of Pix at lunch should not flap the replica count.
      behavior: {
        scaleDown: {
          stabilizationWindowSeconds: 300,
          policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }],
        },
      },
    },
  };
}

export function appDisruptionBudget(app: string, component = 'service'): IPodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: app, labels: labels(app, component) },
    spec: { maxUnavailable: 1, selector: { matchLabels: selector(app) } },
  };
}

export const BASE_CONFIG: Readonly<Record<string, string>> = {
  KAFKA_BROKERS: 'kafka:9092',
  SCHEMA_REGISTRY_URL: `http://${SCHEMA_REGISTRY_NAME}:${SCHEMA_REGISTRY_PORT}/apis/ccompat/v7`,
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://${COLLECTOR_NAME}:4318`,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
  // Every span goes to the collector, which tail-samples whole traces (deploy/otel-collector.yaml): a root
  // (the gateway's request, a job) is always sampled, and every service follows its caller's decision.
  OTEL_TRACES_SAMPLER: 'parentbased_always_on',
  // Where the collector sends traces (an OTLP gRPC endpoint: Jaeger or Tempo); read by the collector only.
  OTEL_TRACES_BACKEND_ENDPOINT: 'jaeger-collector.observability:4317',
  LOG_LEVEL: 'info',
  NODE_ENV: 'production',
  KAFKAJS_NO_PARTITIONER_WARNING: '1',
  // The topics' shape where a service creates them (prod overlay: 3 replicas, 2 in sync).
  KAFKA_PARTITIONS: '3',
  KAFKA_REPLICATION_FACTOR: '1',
  KAFKA_MIN_INSYNC_REPLICAS: '1',
};

export function configMap(data: Readonly<Record<string, string>> = BASE_CONFIG): IConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CONFIG_MAP_NAME, labels: labels('pgw', 'config') },
    data: { ...data },
  };
}

/** The pod of a Job: one container of an app's image, run once, not restarted in place on failure. */
function runOncePod(container: IContainer): IPodSpec {
  return {
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: podSecurity(APP_UID),
    containers: [container],
    volumes: [TMP_VOLUME],
  };
}

/**
 * The app's migrate Job: `node dist/main.js migrate` of its own image, under the migration role (DDL rights,
 * Secret pgw-<app>-db-migrate), while the app's pods run with MIGRATE_ON_START=0 under a role without DDL.
 * A Job rather than an init container: it runs once per release, not at every pod start or HPA scale-up,
 * and one run at a time (no lock race between replicas). Its name carries the version, so a release
 * creates a new Job (a Job's template is immutable); the pipeline waits for it before rolling the apps
 * (docs/runbook.md, "Migrations"). Migrations are idempotent: a repeated run changes nothing.
 */
export function migrateJob(app: AppName): IJob {
  const name = `${app}-migrate-${version().replace(/\./g, '-')}`;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      labels: labels(`${app}-migrate`, 'migration'),
      annotations: { 'pgw/migrates': app },
    },
    spec: {
      backoffLimit: 6,
      activeDeadlineSeconds: 900,
      ttlSecondsAfterFinished: 604_800,
      template: {
        metadata: { labels: labels(`${app}-migrate`, 'migration') },
        spec: runOncePod({
          name: 'migrate',
          image: `${imageName(app)}:${version()}`,
          imagePullPolicy: 'IfNotPresent',
          command: ['node', 'dist/main.js', 'migrate'],
          envFrom: [{ configMapRef: { name: CONFIG_MAP_NAME } }],
          env: [secretEnv('DATABASE_URL', migrationSecretName(app), 'DATABASE_URL')],
          resources: {
            requests: { cpu: '50m', memory: '128Mi' },
            limits: { cpu: '500m', memory: '256Mi' },
          },
          securityContext: CONTAINER_SECURITY,
          volumeMounts: [TMP_MOUNT],
        }),
      },
    },
  };
}

/** The public host of the gateway in the base; overlays set their own. */
export const GATEWAY_HOST = 'api.pgw.example.com';

/**
 * The gateway from outside: an Ingress terminating TLS with the certificate of Secret pgw-gateway-tls
 * (kubernetes.io/tls, from cert-manager or the platform's PKI; docs/runbook.md). Only /api/v1 and /admin/v1
 * are routed: the probes and /health stay inside the cluster.
 */
export function gatewayIngress(host: string = GATEWAY_HOST): IIngress {
  const backend = { service: { name: 'gateway', port: { name: 'http' } } };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'gateway', labels: labels('gateway', 'edge') },
    spec: {
      ingressClassName: 'nginx',
      tls: [{ hosts: [host], secretName: GATEWAY_TLS_SECRET_NAME }],
      rules: [
        {
          host,
          http: {
            paths: [
              { path: '/api/v1', pathType: 'Prefix', backend },
              { path: '/admin/v1', pathType: 'Prefix', backend },
            ],
          },
        },
      ],
    },
  };
}

/**
 * The job container's program: POST the gateway's operator API, print one JSON line with the gateway's
 * request id (to find the run in logs and traces), and fail the Job on anything but a 2xx so that
 * Kubernetes retries it (the services make every job idempotent and serialize it with an advisory lock).
 */
export const JOB_SCRIPT = `
const job = process.env.JOB_NAME;
const body = {};
if (process.env.SEND_AS_OF_DATE === '1') {
  body.as_of_date = new Intl.DateTimeFormat('en-CA', { timeZone: process.env.JOB_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}
fetch(process.env.GATEWAY_URL + '/admin/v1/jobs/' + job, {
  method: 'POST',
  headers: { authorization: 'Bearer ' + process.env.ADMIN_TOKEN, 'content-type': 'application/json' },
  body: JSON.stringify(body),
  signal: AbortSignal.timeout(Number(process.env.JOB_TIMEOUT_MS)),
}).then(async (res) => {
  const text = await res.text();
  console.log(JSON.stringify({ job, status: res.status, request_id: res.headers.get('x-request-id'), answer: text.slice(0, 2000) }));
  process.exit(res.ok ? 0 : 1);
}, (err) => {
  console.error(JSON.stringify({ job, error: String(err) }));
  process.exit(1);
});
`.trimStart();

export const JOB_RESOURCES = {
  requests: { cpu: '20m', memory: '64Mi' },
  limits: { cpu: '200m', memory: '128Mi' },
};

export function jobCronJob(job: JobSpec): ICronJob {
  const name = `job-${job.name}`;
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, labels: labels(name, 'job'), annotations: { 'pgw/job-owner': job.owner } },
    spec: {
      schedule: job.schedule,
      timeZone: JOB_TIME_ZONE,
      concurrencyPolicy: 'Forbid',
      startingDeadlineSeconds: Math.min(job.deadlineSeconds, 300),
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 5,
      jobTemplate: {
        metadata: { labels: labels(name, 'job') },
        spec: {
          backoffLimit: 2,
          activeDeadlineSeconds: job.deadlineSeconds,
          ttlSecondsAfterFinished: 86_400,
          template: {
            metadata: { labels: labels(name, 'job') },
            spec: runOncePod({
              name: 'trigger',
              // The gateway's image: it has Node (fetch) and nothing of the services.
              image: `${imageName('gateway')}:${version()}`,
              imagePullPolicy: 'IfNotPresent',
              command: ['node', '-e', JOB_SCRIPT],
              env: [
                { name: 'JOB_NAME', value: job.name },
                { name: 'GATEWAY_URL', value: `http://gateway:${APP_PORT}` },
                { name: 'SEND_AS_OF_DATE', value: job.sendAsOfDate ? '1' : '0' },
                { name: 'JOB_TIME_ZONE', value: JOB_TIME_ZONE },
                { name: 'JOB_TIMEOUT_MS', value: String((job.deadlineSeconds - 5) * 1000) },
                secretEnv('ADMIN_TOKEN', ADMIN_SECRET_NAME, 'ADMIN_TOKEN'),
              ],
              resources: JOB_RESOURCES,
              securityContext: CONTAINER_SECURITY,
              volumeMounts: [TMP_MOUNT],
            }),
          },
        },
      },
    },
  };
}

/**
 * The Deployment of a piece of infrastructure we run beside the apps (the collector, the schema registry):
 * a fixed replica count, one container, rolled one new pod at a time with none taken away first.
 */
function supportDeployment(d: {
  name: string;
  component: string;
  replicas: number;
  uid: number;
  container: IContainer;
  volumes: IVolume[];
}): IDeployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: d.name, labels: labels(d.name, d.component) },
    spec: {
      replicas: d.replicas,
      revisionHistoryLimit: 5,
      selector: { matchLabels: selector(d.name) },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: labels(d.name, d.component) },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: podSecurity(d.uid),
          containers: [d.container],
          volumes: d.volumes,
        },
      },
    },
  };
}

export function collectorObjects(
  config: string = readFileSync(COLLECTOR_CONFIG_FILE, 'utf8'),
): K8sObject[] {
  const configMapObject: IConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${COLLECTOR_NAME}-config`, labels: labels(COLLECTOR_NAME, 'telemetry') },
    data: { 'config.yaml': config },
  };
  const deployment = supportDeployment({
    name: COLLECTOR_NAME,
    component: 'telemetry',
    // One replica: tail sampling decides on whole traces, so every span of a trace must reach the same
    // collector, which two replicas behind one Service would not ensure (deploy/README.md, Tail sampling).
    replicas: COLLECTOR_REPLICAS,
    uid: COLLECTOR_UID,
    container: {
      name: 'collector',
      image: COLLECTOR_IMAGE,
      imagePullPolicy: 'IfNotPresent',
      args: ['--config=/etc/otelcol/config.yaml'],
      env: [
        {
          name: 'TRACES_BACKEND_ENDPOINT',
          valueFrom: {
            configMapKeyRef: { name: CONFIG_MAP_NAME, key: 'OTEL_TRACES_BACKEND_ENDPOINT' },
          },
        },
        { name: 'GOMEMLIMIT', value: '400MiB' },
      ],
      ports: [
        { name: 'otlp-grpc', containerPort: 4317, protocol: 'TCP' },
        { name: 'otlp-http', containerPort: 4318, protocol: 'TCP' },
        { name: 'metrics', containerPort: 8889, protocol: 'TCP' },
        { name: 'health', containerPort: 13133, protocol: 'TCP' },
      ],
      resources: {
        requests: { cpu: '100m', memory: '256Mi' },
        limits: { cpu: '1', memory: '512Mi' },
      },
      ...probes({ port: 'health', started: '/', ready: '/', live: '/', startupFailures: 30 }),
      securityContext: CONTAINER_SECURITY,
      volumeMounts: [{ name: 'config', mountPath: '/etc/otelcol', readOnly: true }, TMP_MOUNT],
    },
    volumes: [{ name: 'config', configMap: { name: `${COLLECTOR_NAME}-config` } }, TMP_VOLUME],
  });
  const service = clusterService(COLLECTOR_NAME, 'telemetry', [
    ['otlp-grpc', 4317],
    ['otlp-http', 4318],
    ['metrics', 8889],
  ]);
  return [
    configMapObject,
    deployment,
    service,
    appDisruptionBudget(COLLECTOR_NAME, 'telemetry'),
  ].map(asObject);
}

/** The monitoring.coreos.com kinds are not in kubernetes-models: monitoring-crds.ts holds their shape. */
export const MONITORING_API_VERSION = 'monitoring.coreos.com/v1';
export const PROMETHEUS_RULE_NAME = PART_OF;
export const DASHBOARDS_CONFIG_MAP_NAME = 'pgw-grafana-dashboards';
/** Shared with docker-compose's Prometheus and Grafana, as the collector's configuration is (mounted there, embedded here). */
export const RULES_DIR = join(DEPLOY_DIR, 'observability', 'rules');
export const DASHBOARDS_DIR = join(DEPLOY_DIR, 'observability', 'dashboards');

/** File name → content of the files of `dir` that end in `suffix`, in name order. */
function filesOf(dir: string, suffix: string): Array<[string, string]> {
  return readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => [f, readFileSync(join(dir, f), 'utf8')]);
}

/**
 * For the Prometheus Operator: a ServiceMonitor on the collector's Prometheus endpoint (every app's metrics
 * pass through it), the PrometheusRule of deploy/observability/rules (the files compose's Prometheus
 * mounts) and the dashboards in a ConfigMap for Grafana's dashboard sidecar (kube-prometheus-stack looks
 * for the label `grafana_dashboard`). honorLabels keeps the exporter's `job` (the app's service.name)
 * rather than the scrape job's name.
 */
export function monitoringObjects(): K8sObject[] {
  const serviceMonitor: K8sObject = {
    apiVersion: MONITORING_API_VERSION,
    kind: 'ServiceMonitor',
    metadata: { name: COLLECTOR_NAME, labels: labels(COLLECTOR_NAME, 'telemetry') },
    spec: {
      selector: { matchLabels: selector(COLLECTOR_NAME) },
      endpoints: [
        {
          port: 'metrics',
          path: '/metrics',
          interval: '15s',
          scrapeTimeout: '10s',
          honorLabels: true,
        },
      ],
    },
  };
  const prometheusRule: K8sObject = {
    apiVersion: MONITORING_API_VERSION,
    kind: 'PrometheusRule',
    metadata: { name: PROMETHEUS_RULE_NAME, labels: labels(PROMETHEUS_RULE_NAME, 'telemetry') },
    spec: {
      groups: filesOf(RULES_DIR, '.rules.yaml').flatMap(
        ([, text]) => (parse(text) as { groups: unknown[] }).groups,
      ),
    },
  };
  const dashboards: IConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: DASHBOARDS_CONFIG_MAP_NAME,
      labels: { ...labels(DASHBOARDS_CONFIG_MAP_NAME, 'telemetry'), grafana_dashboard: '1' },
      annotations: { grafana_folder: 'Payment gateway' },
    },
    data: Object.fromEntries(filesOf(DASHBOARDS_DIR, '.json')),
  };
  return [serviceMonitor, prometheusRule, asObject(dashboards)];
}

/**
 * The schema registry the services register their events' schemas in and read writers' schemas from (the
 * Confluent wire format). Stateless pods over PostgreSQL storage: two replicas serve the same ids, and a
 * restart keeps the ids the messages in Kafka carry.
 */
export function schemaRegistryObjects(): K8sObject[] {
  const deployment = supportDeployment({
    name: SCHEMA_REGISTRY_NAME,
    component: 'schemas',
    replicas: 2,
    uid: SCHEMA_REGISTRY_UID,
    container: {
      name: 'registry',
      image: SCHEMA_REGISTRY_IMAGE,
      imagePullPolicy: 'IfNotPresent',
      env: [
        { name: 'APICURIO_STORAGE_KIND', value: 'sql' },
        { name: 'APICURIO_STORAGE_SQL_KIND', value: 'postgresql' },
        secretEnv('APICURIO_DATASOURCE_URL', SCHEMA_REGISTRY_DB_SECRET_NAME, 'JDBC_URL'),
        secretEnv('APICURIO_DATASOURCE_USERNAME', SCHEMA_REGISTRY_DB_SECRET_NAME, 'USERNAME'),
        secretEnv('APICURIO_DATASOURCE_PASSWORD', SCHEMA_REGISTRY_DB_SECRET_NAME, 'PASSWORD'),
      ],
      ports: [
        { name: 'http', containerPort: SCHEMA_REGISTRY_PORT, protocol: 'TCP' },
        { name: 'management', containerPort: 9000, protocol: 'TCP' },
      ],
      resources: {
        requests: { cpu: '100m', memory: '384Mi' },
        limits: { cpu: '1', memory: '768Mi' },
      },
      ...probes({
        port: 'management',
        started: '/health/started',
        ready: '/health/ready',
        live: '/health/live',
        startupFailures: 60,
      }),
      securityContext: CONTAINER_SECURITY,
      volumeMounts: [TMP_MOUNT],
    },
    volumes: [TMP_VOLUME],
  });
  const service = clusterService(SCHEMA_REGISTRY_NAME, 'schemas', [['http', SCHEMA_REGISTRY_PORT]]);
  return [deployment, service, appDisruptionBudget(SCHEMA_REGISTRY_NAME, 'schemas')].map(asObject);
}

function ingressPolicy(name: string, ingress: INetworkPolicyIngressRule[]): INetworkPolicy {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: `${name}-ingress`, labels: labels(name, 'network') },
    spec: { podSelector: { matchLabels: selector(name) }, policyTypes: ['Ingress'], ingress },
  };
}

/** Any pod of the gateway's (part-of the same system) may reach these TCP ports. */
function fromOurPods(ports: number[]): INetworkPolicyIngressRule {
  return {
    from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/part-of': PART_OF } } }],
    ports: ports.map((port) => ({ protocol: 'TCP' as const, port })),
  };
}

/**
 * Ingress rules: nothing reaches a pod of ours unless a policy below lets it. The gateway takes traffic from
 * anywhere (the ingress controller and the jobs); each service only from the gateway and the apps that
 * call it (apps.ts peers); the collector and the schema registry from our pods. Egress of the vault, charges and webhooks is held
 * by egressPolicies below; the others' is open.
 */
export function networkPolicies(): K8sObject[] {
  const policies: INetworkPolicy[] = [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'default-deny-ingress', labels: labels('pgw', 'network') },
      spec: {
        podSelector: { matchLabels: { 'app.kubernetes.io/part-of': PART_OF } },
        policyTypes: ['Ingress'],
      },
    },
  ];
  for (const app of APPS) {
    const tcp = [{ protocol: 'TCP' as const, port: APP_PORT }];
    policies.push(
      ingressPolicy(app, [
        APP_SPECS[app].public
          ? { ports: tcp }
          : {
              from: [
                {
                  podSelector: {
                    matchExpressions: [
                      { key: 'app.kubernetes.io/name', operator: 'In', values: callersOf(app) },
                    ],
                  },
                },
              ],
              ports: tcp,
            },
      ]),
    );
  }
  policies.push(
    ingressPolicy(COLLECTOR_NAME, [
      fromOurPods([4317, 4318]),
      // Prometheus scrapes from its own namespace: the metrics carry no secret.
      { ports: [{ protocol: 'TCP', port: 8889 }] },
    ]),
    ingressPolicy(SCHEMA_REGISTRY_NAME, [fromOurPods([SCHEMA_REGISTRY_PORT])]),
  );
  return policies.map(asObject);
}

/** Where cluster and private addresses live: webhooks may reach none of them (SSRF to pods, nodes, metadata). */
export const PRIVATE_IPV4 = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  '127.0.0.0/8',
  '100.64.0.0/10',
];
export const PRIVATE_IPV6 = ['fc00::/7', 'fe80::/10', '::1/128', '::ffff:0:0/96'];
/** PostgreSQL's and Kafka's ports: outside this namespace (a managed database, a Strimzi cluster). */
export const DATABASE_PORT = 5432;
export const KAFKA_PORT = 9092;

/**
 * Egress of the apps that must not reach anything else: the vault (card data) and charges reach DNS,
 * PostgreSQL, Kafka, the collector, the schema registry and the peers they call (apps.ts); webhooks reaches
 * DNS, PostgreSQL, Kafka, the collector, the schema registry and the internet, but no cluster or private address. PostgreSQL and Kafka are
 * allowed by port (their addresses are the platform's); an overlay may narrow them to their CIDRs.
 */
export function egressPolicies(): K8sObject[] {
  const base: INetworkPolicyEgressRule[] = [
    {
      to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
      ports: [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
      ],
    },
    {
      ports: [
        { protocol: 'TCP', port: DATABASE_PORT },
        { protocol: 'TCP', port: KAFKA_PORT },
      ],
    },
    {
      to: [{ podSelector: { matchLabels: selector(COLLECTOR_NAME) } }],
      ports: [{ protocol: 'TCP', port: 4318 }],
    },
    {
      to: [{ podSelector: { matchLabels: selector(SCHEMA_REGISTRY_NAME) } }],
      ports: [{ protocol: 'TCP', port: SCHEMA_REGISTRY_PORT }],
    },
  ];
  const policy = (app: AppName, rules: INetworkPolicyEgressRule[]): INetworkPolicy => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: `${app}-egress`, labels: labels(app, 'network') },
    spec: {
      podSelector: { matchLabels: selector(app) },
      policyTypes: ['Egress'],
      egress: [...base, ...rules],
    },
  });
  const toPeers = (app: AppName): INetworkPolicyEgressRule[] => {
    const peers = [...new Set(Object.values(APP_SPECS[app].peers))];
    return peers.length === 0
      ? []
      : [
          {
            to: [
              {
                podSelector: {
                  matchExpressions: [
                    { key: 'app.kubernetes.io/name', operator: 'In', values: peers },
                  ],
                },
              },
            ],
            ports: [{ protocol: 'TCP', port: APP_PORT }],
          },
        ];
  };
  return [
    policy('vault', toPeers('vault')),
    policy('charges', toPeers('charges')),
    policy('webhooks', [
      {
        to: [
          { ipBlock: { cidr: '0.0.0.0/0', except: PRIVATE_IPV4 } },
          { ipBlock: { cidr: '::/0', except: PRIVATE_IPV6 } },
        ],
      },
    ]),
  ].map(asObject);
}

function asObject(o: { apiVersion?: string; kind?: string; metadata?: unknown }): K8sObject {
  return o as K8sObject;
}

/** The base: every app's Deployment, Service, HPA and PDB, the shared ConfigMap, the jobs, the collector, the schema registry, the policies, the monitoring. */
export interface BaseFile {
  /** File name under deploy/base. */
  file: string;
  objects: K8sObject[];
}

export function baseFiles(): BaseFile[] {
  return [
    { file: 'config.yaml', objects: [asObject(configMap())] },
    ...APPS.map((app) => ({
      file: `${app}.yaml`,
      objects: [
        appDeployment(app),
        appService(app),
        appAutoscaler(app),
        appDisruptionBudget(app),
      ].map(asObject),
    })),
    { file: 'jobs.yaml', objects: JOBS.map((job) => asObject(jobCronJob(job))) },
    { file: 'otel-collector.yaml', objects: collectorObjects() },
    { file: 'schema-registry.yaml', objects: schemaRegistryObjects() },
    { file: 'network-policies.yaml', objects: [...networkPolicies(), ...egressPolicies()] },
    { file: 'migrations.yaml', objects: APPS.map((app) => asObject(migrateJob(app))) },
    { file: 'ingress.yaml', objects: [asObject(gatewayIngress())] },
    { file: 'monitoring.yaml', objects: monitoringObjects() },
  ];
}

export function namespaceObject(name: string): K8sObject {
  const ns: INamespace = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name,
      labels: {
        'app.kubernetes.io/part-of': PART_OF,
        'pod-security.kubernetes.io/enforce': 'restricted',
      },
    },
  };
  return asObject(ns);
}

/** A dev-only Secret: placeholder values, marked so that nobody mistakes them for real ones. */
export function placeholderSecret(name: string, data: Record<string, string>): K8sObject {
  const secret: ISecret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      labels: labels('pgw', 'secret'),
      annotations: {
        'pgw/placeholder': 'dev only: replace every value before anything real runs here',
      },
    },
    type: 'Opaque',
    stringData: data,
  };
  return asObject(secret);
}

/** Every Secret name and key the base refers to, so the dev overlay defines exactly those. */
export function referencedSecrets(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (name: string, key: string) => {
    if (!out.has(name)) out.set(name, new Set());
    out.get(name)?.add(key);
  };
  for (const app of APPS) {
    add(databaseSecretName(app), 'DATABASE_URL');
    add(migrationSecretName(app), 'DATABASE_URL');
    if (verifiesPrincipals(app)) {
      add(PRINCIPAL_SECRET_NAME, 'PRINCIPAL_PUBLIC_KEY');
      add(PRINCIPAL_SECRET_NAME, 'PRINCIPAL_PUBLIC_KEY_PREVIOUS');
    } else {
      add(PRINCIPAL_SIGNING_SECRET_NAME, 'PRINCIPAL_PRIVATE_KEY');
    }
    for (const s of APP_SPECS[app].secrets) add(s.secret, s.key);
  }
  add(ADMIN_SECRET_NAME, 'ADMIN_TOKEN');
  for (const key of ['JDBC_URL', 'USERNAME', 'PASSWORD']) add(SCHEMA_REGISTRY_DB_SECRET_NAME, key);
  return out;
}

export const SECRET_NAMES = {
  ACQUIRER_KEY_SECRET_NAME,
  ADMIN_SECRET_NAME,
  PRINCIPAL_SECRET_NAME,
  PRINCIPAL_SIGNING_SECRET_NAME,
  SCHEMA_REGISTRY_DB_SECRET_NAME,
  VAULT_KEYS_SECRET_NAME,
};
