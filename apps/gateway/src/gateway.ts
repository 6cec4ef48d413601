import { Type } from '@sinclair/typebox';
import type { Bus } from '@pgw/platform-bus';
import type { Db } from '@pgw/platform-db';
import { buildApp, RequestIdSchema, type App, type AppOptions } from '@pgw/platform-http';
import type { Clock } from '@pgw/platform-service';

export type ServiceName = 'vault' | 'charges' | 'ledger' | 'receivables' | 'anticipation' | 'webhooks' | 'acquirer-sim';

/** How the gateway reaches the services: @fastify/http-proxy over HTTP, or in-process without a network hop. */
export type Upstreams =
  | { mode: 'http'; baseUrls: Partial<Record<ServiceName, string>> }
  | { mode: 'inject'; apps: Map<ServiceName, App> };

export interface GatewayOptions {
  db: Db;
  bus: Bus;
  clock: Clock;
  principalSecret: string;
  adminToken: string;
  upstreams: Upstreams;
  env: NodeJS.ProcessEnv;
  log?: AppOptions['log'];
  bodyLimitBytes?: number;
}

export interface DemoCredentials {
  tenantId: string;
  sellerId: string;
  apiKey: string;
}

export interface RunningGateway {
  app: App;
  /** DEMO=1: a demo tenant, an approved seller and a full-permission sk_test_ key (made once, then reused). */
  provisionDemo(): Promise<DemoCredentials>;
  stop(): Promise<void>;
}

const HealthSchema = Type.Object({
  object: Type.Literal('health'),
  service: Type.Literal('service-gateway'),
  status: Type.Literal('ok'),
  version: Type.Literal('v1'),
  request_id: RequestIdSchema,
});

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const app = buildApp({ name: 'gateway', bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024, ...(options.log ? { log: options.log } : {}) });
  app.get('/api/v1/health', { schema: { response: { 200: HealthSchema } } }, async (request) => ({
    object: 'health' as const,
    service: 'service-gateway' as const,
    status: 'ok' as const,
    version: 'v1' as const,
    request_id: request.id,
  }));
  await app.ready();
  return {
    app,
    provisionDemo: async () => {
      throw new Error('not implemented yet');
    },
    stop: async () => {
      await app.close();
    },
  };
}
