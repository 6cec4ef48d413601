// What the deployment knows about each app: one table read by the Kubernetes generator, the compose check
// and the bundler, so that a new app or a new peer is declared once. Environment variables are those the
// apps' src/main.ts read (and apps/gateway/README.md documents); nothing here is a secret value.

export const APPS = [
  'gateway',
  'vault',
  'charges',
  'ledger',
  'receivables',
  'anticipation',
  'webhooks',
  'acquirer-sim',
] as const;
export type AppName = (typeof APPS)[number];

/** Every app listens on this port inside its container/pod (PORT); Services expose the same port. */
export const APP_PORT = 8080;

/** A secret environment variable: which Secret holds it (a reference; values never live in base/ or prod). */
export interface SecretRef {
  variable: string;
  secret: string;
  key: string;
  optional?: boolean;
}

export interface AppSpec {
  name: AppName;
  /** The readiness path (compose's healthcheck, Kubernetes' readinessProbe): the database and the broker answer. */
  healthPath: string;
  /** Peers this app calls over HTTP: variable name → app. The NetworkPolicy lets exactly these in. */
  peers: Readonly<Record<string, AppName>>;
  /** Secret variables beyond DATABASE_URL and the principal keys (the gateway's private key; every service's public keys). */
  secrets: readonly SecretRef[];
  /** Non-secret settings of this app alone (defaults of the code, written out so operators see them). */
  settings: Readonly<Record<string, string>>;
  /** Whether the public edge (an ingress controller) may reach it. */
  public: boolean;
}

/** The Secret holding one app's DATABASE_URL: one database user per service, so one leak is one schema. */
export function databaseSecretName(app: AppName): string {
  return `pgw-${app}-db`;
}
/** The Secret holding the DATABASE_URL of the app's migration role (DDL rights), read by its migrate Job only. */
export function migrationSecretName(app: AppName): string {
  return `pgw-${app}-db-migrate`;
}
/** The liveness path: the process alone, so a database or broker outage restarts no pod. */
export const LIVENESS_PATH = '/livez';
/** The TLS certificate of the gateway's public host (a kubernetes.io/tls Secret; docs/runbook.md). */
export const GATEWAY_TLS_SECRET_NAME = 'pgw-gateway-tls';
/** The principal's public keys, which every service verifies with (docs/runbook.md). */
export const PRINCIPAL_SECRET_NAME = 'pgw-principal';
/** The principal's private key: the gateway alone signs. */
export const PRINCIPAL_SIGNING_SECRET_NAME = 'pgw-principal-signing';
export const ADMIN_SECRET_NAME = 'pgw-admin';
export const VAULT_KEYS_SECRET_NAME = 'pgw-vault-keys';
export const ACQUIRER_KEY_SECRET_NAME = 'pgw-acquirer-sim-key';

const ACQUIRER_SIM_KEY: SecretRef = {
  variable: 'ACQUIRER_SIM_KEY',
  secret: ACQUIRER_KEY_SECRET_NAME,
  key: 'ACQUIRER_SIM_KEY',
  optional: true,
};

/** The gateway's *_URL variables (apps/gateway/src/main.ts): every service it routes to. */
export const GATEWAY_UPSTREAMS: Readonly<Record<string, AppName>> = {
  VAULT_URL: 'vault',
  CHARGES_URL: 'charges',
  LEDGER_URL: 'ledger',
  RECEIVABLES_URL: 'receivables',
  ANTICIPATION_URL: 'anticipation',
  WEBHOOKS_URL: 'webhooks',
  ACQUIRER_SIM_URL: 'acquirer-sim',
};

export const APP_SPECS: Readonly<Record<AppName, AppSpec>> = {
  gateway: {
    name: 'gateway',
    healthPath: '/readyz',
    peers: GATEWAY_UPSTREAMS,
    secrets: [{ variable: 'ADMIN_TOKEN', secret: ADMIN_SECRET_NAME, key: 'ADMIN_TOKEN' }],
    // TRUSTED_PROXIES: the ingress controller reaches the gateway from a pod address (a private range), and
    // the client's address is the last one it reports (apps/gateway/README.md); narrow it to the cluster's
    // pod CIDR where other private hosts could reach the gateway directly.
    settings: {
      RATE_LIMIT_PER_SECOND: '100',
      UPSTREAM_TIMEOUT_MS: '30000',
      UPSTREAM_IN_FLIGHT_MAX: '64',
      UPSTREAM_LATENCY_TARGET_MS: '100',
      TRUSTED_PROXIES: 'uniquelocal',
    },
    public: true,
  },
  vault: {
    name: 'vault',
    healthPath: '/readyz',
    peers: { ACQUIRER_SIM_URL: 'acquirer-sim' },
    secrets: [
      { variable: 'VAULT_KEK', secret: VAULT_KEYS_SECRET_NAME, key: 'VAULT_KEK' },
      { variable: 'VAULT_KEK_ID', secret: VAULT_KEYS_SECRET_NAME, key: 'VAULT_KEK_ID' },
      {
        variable: 'VAULT_KEKS_RETIRED',
        secret: VAULT_KEYS_SECRET_NAME,
        key: 'VAULT_KEKS_RETIRED',
        optional: true,
      },
      {
        variable: 'VAULT_FINGERPRINT_KEY',
        secret: VAULT_KEYS_SECRET_NAME,
        key: 'VAULT_FINGERPRINT_KEY',
      },
      ACQUIRER_SIM_KEY,
    ],
    settings: { ACQUIRER_ADAPTER: 'simulator', ACQUIRER_TIMEOUT_MS: '3000' },
    public: false,
  },
  charges: {
    name: 'charges',
    healthPath: '/readyz',
    peers: { VAULT_URL: 'vault', ACQUIRER_SIM_URL: 'acquirer-sim' },
    secrets: [ACQUIRER_SIM_KEY],
    settings: { ACQUIRER_ADAPTER: 'simulator', ACQUIRER_TIMEOUT_MS: '3000' },
    public: false,
  },
  ledger: {
    name: 'ledger',
    healthPath: '/readyz',
    peers: {},
    secrets: [],
    settings: {},
    public: false,
  },
  receivables: {
    name: 'receivables',
    healthPath: '/readyz',
    peers: {},
    secrets: [],
    settings: {},
    public: false,
  },
  anticipation: {
    name: 'anticipation',
    healthPath: '/readyz',
    peers: {},
    secrets: [],
    settings: {},
    public: false,
  },
  webhooks: {
    name: 'webhooks',
    healthPath: '/readyz',
    peers: {},
    secrets: [],
    settings: { WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_CONCURRENCY: '16' },
    public: false,
  },
  'acquirer-sim': {
    name: 'acquirer-sim',
    healthPath: '/readyz',
    peers: {},
    secrets: [ACQUIRER_SIM_KEY],
    settings: {},
    public: false,
  },
};

/** The apps that call `app` over HTTP (the NetworkPolicy's allowed sources). */
export function callersOf(app: AppName): AppName[] {
  return APPS.filter((caller) => Object.values(APP_SPECS[caller].peers).includes(app));
}

/** Contract §5's jobs, triggered at POST /admin/v1/jobs/{name} on the gateway with the ADMIN_TOKEN bearer. */
export interface JobSpec {
  name:
    | 'receivables-release'
    | 'settlement-run'
    | 'authorization-expiry'
    | 'pix-expiry'
    | 'refund-reconciliation'
    | 'pix-payments'
    | 'boleto-exchange';
  /** The service that runs it behind the gateway (apps/gateway/src/routes.table.ts JOB_OWNERS). */
  owner: AppName;
  /** Cron in America/Sao_Paulo (CronJob spec.timeZone). */
  schedule: string;
  /** Send today's date in America/Sao_Paulo as as_of_date (daily jobs), so a late run keeps its business day. */
  sendAsOfDate: boolean;
  /** Longest a run may take before Kubernetes stops it; the next schedule starts it again. */
  deadlineSeconds: number;
}

export const JOB_TIME_ZONE = 'America/Sao_Paulo';

export const JOBS: readonly JobSpec[] = [
  {
    name: 'receivables-release',
    owner: 'receivables',
    schedule: '5 0 * * *',
    sendAsOfDate: true,
    deadlineSeconds: 1800,
  },
  {
    name: 'settlement-run',
    owner: 'receivables',
    schedule: '30 0 * * *',
    sendAsOfDate: true,
    deadlineSeconds: 1800,
  },
  {
    name: 'authorization-expiry',
    owner: 'charges',
    schedule: '10 * * * *',
    sendAsOfDate: false,
    deadlineSeconds: 600,
  },
  {
    name: 'pix-expiry',
    owner: 'charges',
    schedule: '* * * * *',
    sendAsOfDate: false,
    deadlineSeconds: 55,
  },
  {
    name: 'refund-reconciliation',
    owner: 'charges',
    schedule: '*/5 * * * *',
    sendAsOfDate: false,
    deadlineSeconds: 280,
  },
  // Live rails (issue 23): the PSP's webhook pays a live Pix at once; this poll catches a lost notification.
  {
    name: 'pix-payments',
    owner: 'charges',
    schedule: '* * * * *',
    sendAsOfDate: false,
    deadlineSeconds: 55,
  },
  // Banks send return files a few times a day; a slip registered now leaves in the next remittance.
  {
    name: 'boleto-exchange',
    owner: 'charges',
    schedule: '*/15 * * * *',
    sendAsOfDate: false,
    deadlineSeconds: 600,
  },
];
