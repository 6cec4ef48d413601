// The overlays (dev, prod) over the base, and two ways to see them: as kustomize files (what deploy/ holds
// and `kubectl apply -k` reads) and as rendered objects, computed here without kubectl (what CI checks).
// The spec proves both agree by rendering deploy/overlays/* with `kubectl kustomize` where kubectl exists.
import { stringify } from 'yaml';
import { APPS, databaseSecretName, migrationSecretName, type AppName } from './apps';
import {
  BASE_CONFIG,
  BASE_SIZING,
  baseFiles,
  CONFIG_MAP_NAME,
  heapMegabytes,
  imageName,
  namespaceObject,
  placeholderSecret,
  referencedSecrets,
  SECRET_NAMES,
  version,
  type K8sObject,
  type Sizing,
} from './manifests';

export const ENVIRONMENTS = ['dev', 'prod'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export interface Overlay {
  env: Environment;
  namespace: string;
  imageTag: string;
  /** ConfigMap values that differ from the base. */
  config: Readonly<Record<string, string>>;
  /** Sizes that differ from the base, per app. */
  sizing: Partial<Record<AppName, Sizing>>;
  /** Objects only this overlay has (file name → objects). */
  resources: ReadonlyArray<{ file: string; objects: K8sObject[] }>;
  /** Comment at the top of its kustomization.yaml. */
  notes: string[];
}

const DEV_SIZING: Sizing = {
  requests: { cpu: '50m', memory: '128Mi' },
  limits: { cpu: '500m', memory: '384Mi' },
  minReplicas: 2,
  maxReplicas: 3,
};

const DEV_PRINCIPAL_PRIVATE_KEY =
  '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIEHuViV7JBaAOykF+w0dnGGsRmOrEd7nuJnyevEwhP7/\n-----END PRIVATE KEY-----\n';
const DEV_PRINCIPAL_PUBLIC_KEY =
  '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAh1azmMM8aePmMvJMnMme+OgCwno1J9iEEC4aqdvUr2s=\n-----END PUBLIC KEY-----\n';

/** Dev placeholders: obviously fake, valid in shape (the vault checks base64 lengths at boot). */
function devSecrets(): K8sObject[] {
  const values: Record<string, Record<string, string>> = {
    // A dev-only Ed25519 pair, published here: replace both before anything real runs (docs/runbook.md).
    [SECRET_NAMES.PRINCIPAL_SECRET_NAME]: {
      PRINCIPAL_PUBLIC_KEY: DEV_PRINCIPAL_PUBLIC_KEY,
      PRINCIPAL_PUBLIC_KEY_PREVIOUS: '',
    },
    [SECRET_NAMES.PRINCIPAL_SIGNING_SECRET_NAME]: {
      PRINCIPAL_PRIVATE_KEY: DEV_PRINCIPAL_PRIVATE_KEY,
    },
    [SECRET_NAMES.ADMIN_SECRET_NAME]: { ADMIN_TOKEN: 'dev-admin-token-change-me-0123456789' },
    [SECRET_NAMES.VAULT_KEYS_SECRET_NAME]: {
      VAULT_KEK: Buffer.from('dev-kek-change-me-32-bytes-long!').toString('base64'),
      VAULT_KEK_ID: 'dev-1',
      VAULT_KEKS_RETIRED: '',
      VAULT_FINGERPRINT_KEY: Buffer.from('dev-fingerprint-key-change-me-0123456789').toString(
        'base64',
      ),
    },
    [SECRET_NAMES.ACQUIRER_KEY_SECRET_NAME]: { ACQUIRER_SIM_KEY: 'dev-acquirer-key-change-me' },
    [SECRET_NAMES.SCHEMA_REGISTRY_DB_SECRET_NAME]: {
      JDBC_URL: 'jdbc:postgresql://postgres:5432/gateway?currentSchema=schema_registry',
      USERNAME: 'pgw_schema_registry',
      PASSWORD: 'change-me',
    },
  };
  for (const app of APPS) {
    values[databaseSecretName(app)] = {
      DATABASE_URL: `postgres://pgw_${app.replace('-', '_')}:change-me@postgres:5432/gateway`,
    };
    // The migration role (DDL on the app's schema), read by the app's migrate Job only (docs/runbook.md).
    values[migrationSecretName(app)] = {
      DATABASE_URL: `postgres://pgw_${app.replace('-', '_')}_migrate:change-me@postgres:5432/gateway`,
    };
  }
  const referenced = referencedSecrets();
  return [...referenced.keys()].sort().map((name) => {
    const data = values[name];
    if (data === undefined) throw new Error(`dev overlay has no placeholder for Secret ${name}`);
    return placeholderSecret(name, data);
  });
}

export function overlay(env: Environment): Overlay {
  if (env === 'dev') {
    return {
      env,
      namespace: 'pgw-dev',
      imageTag: 'dev',
      config: {
        LOG_LEVEL: 'debug',
        OTEL_TRACES_BACKEND_ENDPOINT: 'jaeger-collector.observability:4317',
      },
      sizing: Object.fromEntries(APPS.map((app) => [app, DEV_SIZING])),
      resources: [
        { file: 'namespace.yaml', objects: [namespaceObject('pgw-dev')] },
        { file: 'secrets.yaml', objects: devSecrets() },
      ],
      notes: [
        'Development cluster (kind, minikube): images built locally with tag `dev`, PostgreSQL and Kafka',
        'reachable as postgres:5432 and kafka:9092 in the namespace. secrets.yaml holds PLACEHOLDERS ONLY:',
        'the one place in the repository where Secret values are written out (docs/runbook.md).',
      ],
    };
  }
  return {
    env,
    namespace: 'pgw',
    imageTag: version(),
    config: {
      // Set these to your cluster's endpoints (a Strimzi bootstrap, a Tempo or Jaeger collector).
      KAFKA_BROKERS: 'kafka-bootstrap.kafka.svc:9092',
      OTEL_TRACES_BACKEND_ENDPOINT: 'tempo-distributor.observability.svc:4317',
      // Three brokers: a topic survives one down and still takes acks=all writes (2 in sync).
      KAFKA_REPLICATION_FACTOR: '3',
      KAFKA_MIN_INSYNC_REPLICAS: '2',
      // The acquirer simulator refuses live traffic here (contract §6).
      DEPLOYMENT_ENV: 'production',
    },
    sizing: {
      gateway: {
        requests: { cpu: '250m', memory: '256Mi' },
        limits: { cpu: '2', memory: '768Mi' },
        minReplicas: 3,
        maxReplicas: 20,
      },
      charges: {
        requests: { cpu: '250m', memory: '256Mi' },
        limits: { cpu: '1', memory: '512Mi' },
        minReplicas: 3,
        maxReplicas: 12,
      },
      vault: { ...BASE_SIZING, minReplicas: 3, maxReplicas: 8 },
      webhooks: { ...BASE_SIZING, minReplicas: 2, maxReplicas: 10 },
      ledger: {
        requests: { cpu: '200m', memory: '256Mi' },
        limits: { cpu: '1', memory: '512Mi' },
        minReplicas: 2,
        maxReplicas: 8,
      },
    },
    resources: [{ file: 'namespace.yaml', objects: [namespaceObject('pgw')] }],
    notes: [
      'Production: no Secret here. Create the Secrets of docs/runbook.md ("Secrets") from your secret store',
      '(External Secrets, Sealed Secrets or kubectl create secret) before the first apply. The release',
      'pipeline pins each image: `kustomize edit set image pgw/gateway=REGISTRY/pgw/gateway@sha256:…`.',
    ],
  };
}

/** A strategic-merge patch: what kustomize applies; `render` applies the same with `mergePatch`. */
export interface Patch {
  file: string;
  patch: K8sObject;
}

export function overlayPatches(o: Overlay): Patch[] {
  const patches: Patch[] = [];
  const changed = Object.entries(o.config).filter(([key, value]) => BASE_CONFIG[key] !== value);
  if (changed.length > 0) {
    patches.push({
      file: 'patches/config.yaml',
      patch: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: CONFIG_MAP_NAME },
        data: Object.fromEntries(changed),
      },
    });
  }
  for (const app of APPS) {
    const sizing = o.sizing[app];
    if (sizing === undefined) continue;
    patches.push({
      file: `patches/${app}-deployment.yaml`,
      patch: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: app },
        spec: {
          template: {
            spec: {
              containers: [
                {
                  name: app,
                  env: [
                    {
                      name: 'NODE_OPTIONS',
                      value: `--max-old-space-size=${heapMegabytes(sizing.limits.memory)}`,
                    },
                  ],
                  resources: { requests: { ...sizing.requests }, limits: { ...sizing.limits } },
                },
              ],
            },
          },
        },
      },
    });
    patches.push({
      file: `patches/${app}-hpa.yaml`,
      patch: {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: app },
        spec: { minReplicas: sizing.minReplicas, maxReplicas: sizing.maxReplicas },
      },
    });
  }
  return patches;
}

/** Images whose tag the overlay sets: every app's (the jobs run the gateway's). */
export function overlayImages(o: Overlay): Array<{ name: string; newTag: string }> {
  return APPS.map((app) => ({ name: imageName(app), newTag: o.imageTag }));
}

// ---- rendering without kubectl ------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isRecord(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A strategic merge patch as kustomize applies ours: maps merge key by key; lists of objects with a `name`
 * (containers, env, volumes, mounts) merge item by item on it, new items appended; other values replace.
 */
export function mergePatch(target: Json, patch: Json): Json {
  if (isRecord(target) && isRecord(patch)) {
    const out: Record<string, Json> = { ...target };
    for (const [key, value] of Object.entries(patch))
      out[key] = key in target ? mergePatch(target[key] as Json, value) : value;
    return out;
  }
  if (
    Array.isArray(target) &&
    Array.isArray(patch) &&
    patch.every((p) => isRecord(p) && typeof p.name === 'string')
  ) {
    const out = target.map((item) => {
      const match = isRecord(item)
        ? patch.find((p) => isRecord(p) && p.name === item.name)
        : undefined;
      return match === undefined ? item : mergePatch(item, match);
    });
    for (const p of patch)
      if (!target.some((item) => isRecord(item) && isRecord(p) && item.name === p.name))
        out.push(p);
    return out;
  }
  return patch;
}

const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'PersistentVolume',
  'StorageClass',
]);

function setImages(node: Json, images: ReadonlyArray<{ name: string; newTag: string }>): Json {
  if (Array.isArray(node)) return node.map((n) => setImages(n, images));
  if (!isRecord(node)) return node;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'image' && typeof value === 'string') {
      const name = value.replace(/[:@].*$/, '');
      const set = images.find((i) => i.name === name);
      out[key] = set === undefined ? value : `${name}:${set.newTag}`;
    } else {
      out[key] = setImages(value, images);
    }
  }
  return out;
}

/** The objects `kubectl kustomize deploy/overlays/<env>` yields, computed from the same definitions. */
export function render(env: Environment): K8sObject[] {
  const o = overlay(env);
  let objects = [
    ...baseFiles().flatMap((f) => f.objects),
    ...o.resources.flatMap((r) => r.objects),
  ].map((x) => JSON.parse(JSON.stringify(x)) as K8sObject);
  for (const { patch } of overlayPatches(o)) {
    const index = objects.findIndex(
      (x) => x.kind === patch.kind && x.metadata.name === patch.metadata.name,
    );
    if (index < 0) throw new Error(`patch for missing ${patch.kind}/${patch.metadata.name}`);
    objects[index] = mergePatch(
      objects[index] as unknown as Json,
      patch as unknown as Json,
    ) as unknown as K8sObject;
  }
  const images = overlayImages(o);
  objects = objects.map((x) => setImages(x as unknown as Json, images) as unknown as K8sObject);
  for (const x of objects) if (!CLUSTER_SCOPED.has(x.kind)) x.metadata.namespace = o.namespace;
  return objects;
}

// ---- the files of deploy/ -----------------------------------------------------------------------------

export const GENERATED_HEADER =
  '# Generated by tools/deploy/generate.ts from tools/deploy/*.ts: edit those, then run\n# `npx tsx tools/deploy/generate.ts` (the spec in tools/deploy fails when this file is out of date).\n';

export function toYaml(objects: readonly unknown[]): string {
  return objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}

/** Every generated file under deploy/ (path relative to deploy/ → content), except otel-collector.yaml (hand-written). */
export function deployFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const bases = baseFiles();
  for (const f of bases) files.set(`base/${f.file}`, GENERATED_HEADER + toYaml(f.objects));
  files.set(
    'base/kustomization.yaml',
    GENERATED_HEADER +
      toYaml([
        {
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: bases.map((f) => f.file),
        },
      ]),
  );
  for (const env of ENVIRONMENTS) {
    const o = overlay(env);
    const patches = overlayPatches(o);
    for (const r of o.resources)
      files.set(`overlays/${env}/${r.file}`, GENERATED_HEADER + toYaml(r.objects));
    for (const p of patches)
      files.set(`overlays/${env}/${p.file}`, GENERATED_HEADER + toYaml([p.patch]));
    const kustomization = {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      namespace: o.namespace,
      resources: ['../../base', ...o.resources.map((r) => r.file)],
      images: overlayImages(o),
      patches: patches.map((p) => ({ path: p.file })),
    };
    files.set(
      `overlays/${env}/kustomization.yaml`,
      GENERATED_HEADER + o.notes.map((n) => `# ${n}\n`).join('') + toYaml([kustomization]),
    );
  }
  return files;
}
