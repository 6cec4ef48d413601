import { Writable } from 'node:stream';
import type { Knex } from 'knex';
import type { Response as InjectResponse } from 'light-my-request';
import { InProcessBus } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb, type Db } from '@pgw/platform-db';
import { generateCnpj, generateCpf } from '@pgw/domain';
import {
  buildApp,
  generatePrincipalKeys,
  PRINCIPAL_HEADER,
  principalPlugin,
  type App,
} from '@pgw/platform-http';
import { ManualClock } from '@pgw/platform-service';
import { startGateway, type RunningGateway } from '../gateway';
import type { Upstreams } from '../forwarding/register-forwarding';
import type { ServiceName } from '../routes.table';

// Test support for the gateway's specs (not a spec itself): a gateway on an in-memory PGlite, stub
// services that echo what reached them, and helpers that go through the operator API as an operator would.

/** The gateway under test signs with the private key; the stub services hold the public key only. */
export const PRINCIPAL_KEYS = generatePrincipalKeys();
export const ADMIN_TOKEN = 'adm_gateway_tests_0123456789abcdef';
export const ALL_SERVICES: ServiceName[] = [
  'vault',
  'charges',
  'ledger',
  'receivables',
  'anticipation',
  'webhooks',
  'acquirer-sim',
];

export interface CapturedLog {
  lines: string[];
  stream: Writable;
}

export function captureLog(): CapturedLog {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

export interface StubCall {
  service: string;
  method: string;
  url: string;
}

/** Holds the requests that ask for it (`x-stub-hold`) at a stub service until opened: requests kept in flight. */
export class Gate {
  /** Held requests that reached the service, opened or not. */
  arrived = 0;
  private waiters: Array<() => void> = [];

  async pass(): Promise<void> {
    this.arrived += 1;
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Lets every request held so far go on; later ones are held again. */
  open(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}

/**
 * A service as the platform builds one (buildApp + principalPlugin) that echoes what reached it: the
 * verified principal, the path, the raw body and the headers that matter. `x-stub-status` and
 * `x-stub-header: name=value` make it answer with that status and header, to test what comes back;
 * `x-stub-hold` holds the request at `gate` until it opens, `x-stub-reset` drops the connection unanswered.
 */
export async function stubService(
  name: string,
  calls: StubCall[] = [],
  gate: Gate = new Gate(),
): Promise<App> {
  const app = buildApp({ name, trustRequestIdHeader: true, log: { level: 'silent' } });
  await app.register(principalPlugin, { publicKey: PRINCIPAL_KEYS.publicKey });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  app.all('/*', async (request, reply) => {
    calls.push({ service: name, method: request.method, url: request.url });
    if (request.headers['x-stub-hold'] !== undefined) await gate.pass();
    if (request.headers['x-stub-reset'] !== undefined) {
      request.raw.socket.destroy();
      return reply.hijack();
    }
    const status = Number(request.headers['x-stub-status'] ?? 200);
    const extra = request.headers['x-stub-header'];
    if (typeof extra === 'string') {
      const [header, value] = extra.split('=');
      if (header !== undefined && value !== undefined) reply.header(header, value);
    }
    return reply.code(status).send({
      service: name,
      method: request.method,
      url: request.url,
      principal: request.principal,
      /** The signed principal as received: a spec replays it to show it holds for this request only. */
      principal_header: request.headers[PRINCIPAL_HEADER] ?? null,
      raw_body: typeof request.body === 'string' ? request.body : null,
      authorization: request.headers.authorization ?? null,
      content_type: request.headers['content-type'] ?? null,
      x_request_id: request.headers['x-request-id'] ?? null,
    });
  });
  await app.ready();
  return app;
}

export async function stubUpstreams(
  services: ServiceName[] = ALL_SERVICES,
  calls: StubCall[] = [],
): Promise<Upstreams> {
  const apps = new Map<ServiceName, App>();
  for (const service of services) apps.set(service, await stubService(service, calls));
  return { mode: 'inject', apps };
}

export interface Fixture {
  knex: Knex;
  db: Db;
  bus: InProcessBus;
  clock: ManualClock;
  gateway: RunningGateway;
  app: App;
  log: CapturedLog;
  admin: (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
  ) => Promise<InjectResponse>;
}

export interface FixtureOptions {
  upstreams?: Upstreams;
  env?: NodeJS.ProcessEnv;
  bodyLimitBytes?: number;
  /** Reuse another fixture's database: a second replica of the same gateway. */
  knex?: Knex;
  /** The rate limiters' clock (default: real time). */
  rateLimitNowMs?: () => number;
}

export async function startFixture(options: FixtureOptions = {}): Promise<Fixture> {
  const knex = options.knex ?? createPgliteKnex(null);
  const db = sharedDb(knex, 'gateway');
  const bus = new InProcessBus();
  const clock = new ManualClock(new Date('2026-03-02T12:00:00Z'));
  const log = captureLog();
  const gateway = await startGateway({
    db,
    bus,
    clock,
    principalPrivateKey: PRINCIPAL_KEYS.privateKey,
    adminToken: ADMIN_TOKEN,
    upstreams: options.upstreams ?? (await stubUpstreams()),
    env: options.env ?? {},
    log: { level: 'trace', stream: log.stream },
    ...(options.bodyLimitBytes !== undefined ? { bodyLimitBytes: options.bodyLimitBytes } : {}),
    ...(options.rateLimitNowMs !== undefined ? { rateLimitNowMs: options.rateLimitNowMs } : {}),
  });
  const app = gateway.app;
  const admin: Fixture['admin'] = (method, url, payload) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      ...(payload !== undefined ? { payload } : {}),
    });
  return { knex, db, bus, clock, gateway, app, log, admin };
}

export async function stopFixture(
  fixture: Fixture,
  options: { keepDatabase?: boolean } = {},
): Promise<void> {
  await fixture.gateway.stop();
  if (options.keepDatabase !== true) await fixture.knex.destroy();
}

let documentSeed = 1;

export async function createTenant(fixture: Fixture, body: object = {}): Promise<string> {
  const res = await fixture.admin('POST', '/admin/v1/tenants', { name: 'Loja Exemplo', ...body });
  if (res.statusCode !== 201)
    throw new Error(`tenant: ${res.statusCode} ${JSON.stringify(res.json())}`);
  return res.json().id;
}

export async function createSeller(
  fixture: Fixture,
  tenantId: string,
  body: object = {},
): Promise<string> {
  documentSeed += 1;
  const document = documentSeed % 2 === 0 ? generateCpf(documentSeed) : generateCnpj(documentSeed);
  const res = await fixture.admin('POST', `/admin/v1/tenants/${tenantId}/sellers`, {
    name: 'Vendedor',
    document,
    ...body,
  });
  if (res.statusCode !== 201)
    throw new Error(`seller: ${res.statusCode} ${JSON.stringify(res.json())}`);
  return res.json().id;
}

export interface KeyRequest {
  tenantId: string;
  sellerId?: string | null;
  environment?: 'test' | 'live';
  permissions: readonly string[];
  rateLimitPerSecond?: number;
}

export async function createKey(
  fixture: Fixture,
  key: KeyRequest,
): Promise<{ id: string; secret: string }> {
  const res = await fixture.admin('POST', '/admin/v1/api-keys', {
    tenant_id: key.tenantId,
    permissions: key.permissions,
    ...(key.sellerId !== undefined ? { seller_id: key.sellerId } : {}),
    ...(key.environment !== undefined ? { environment: key.environment } : {}),
    ...(key.rateLimitPerSecond !== undefined
      ? { rate_limit_per_second: key.rateLimitPerSecond }
      : {}),
  });
  if (res.statusCode !== 201)
    throw new Error(`key: ${res.statusCode} ${JSON.stringify(res.json())}`);
  return { id: res.json().id, secret: res.json().secret };
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
