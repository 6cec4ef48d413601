// Test support for the webhooks specs (not shipped code paths): the service on a shared PGlite or
// PostgreSQL, a real HTTP receiver on 127.0.0.1, directory and charge events as their producers publish
// them, and the operator principal.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import type { Static } from '@sinclair/typebox';
import {
  encodeEvent,
  EVENT_TOPICS,
  newEnvelope,
  type ChargeEvent,
  type EventMap,
} from '@pgw/contracts';
import { newId } from '@pgw/domain';
import { HEADER_EVENT_ID, HEADER_EVENT_TYPE, InProcessBus, type Bus } from '@pgw/platform-bus';
import { sharedDb, type Db } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, TestPrincipals } from '@pgw/platform-http';
import {
  InjectPeers,
  startService,
  systemClock,
  type Clock,
  type RunningService,
  type ServiceDefinition,
} from '@pgw/platform-service';
import { DeliveryWithAttemptsBody } from '../routes/schemas';
import { createWebhooksService } from '../service';

/** The specs play the gateway: principals are signed with this pair for each request; the service holds the public key. */
export const PRINCIPALS = new TestPrincipals();

/** Milliseconds instead of seconds: base 20 ms, cap 200 ms, 300 ms per attempt, polls every 10 ms. */
export const FAST_ENV: NodeJS.ProcessEnv = {
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_RETRY_CAP_MS: '200',
  WEBHOOK_TIMEOUT_MS: '300',
  WEBHOOK_POLL_INTERVAL_MS: '10',
  // The receiver listens on 127.0.0.1.
  WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
};

export interface Harness {
  service: RunningService;
  db: Db;
  bus: Bus;
  clock: Clock;
  stop(): Promise<void>;
}

export async function startWebhooks(
  knex: Knex,
  options: {
    schema?: string;
    clock?: Clock;
    env?: NodeJS.ProcessEnv;
    bus?: Bus;
    definition?: ServiceDefinition;
    db?: Db;
  } = {},
): Promise<Harness> {
  const db = options.db ?? sharedDb(knex, options.schema ?? 'webhooks');
  const bus = options.bus ?? new InProcessBus();
  const clock = options.clock ?? systemClock;
  const service = await startService(options.definition ?? createWebhooksService(), {
    db,
    bus,
    clock,
    principalPublicKey: PRINCIPALS.publicKey,
    peers: new InjectPeers(),
    env: options.env ?? FAST_ENV,
    log: { level: 'silent' },
  });
  PRINCIPALS.bind(service.app);
  return { service, db, bus, clock, stop: () => service.stop() };
}

/** What the gateway adds to a forwarded operator request. */
export const operatorHeaders = (): Record<string, string> => ({
  'x-request-id': 'req_webhooks_test',
  [PRINCIPAL_HEADER]: PRINCIPALS.header({
    kind: 'operator',
    requestId: 'req_webhooks_test',
    expiresAtMs: Date.now() + 60_000,
  }),
});

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** The parsed body: contract §7's event. */
  event: {
    id: string;
    object: string;
    type: string;
    created_at: string;
    livemode: boolean;
    data: { object: Record<string, unknown> };
    request_id: string | null;
  };
  receivedAtMs: number;
}

/** What a path answers to its n-th request (0-based): a status and body, or 'hang' (never answers). */
export type Behaviour = (
  index: number,
  request: ReceivedRequest,
) => { status: number; body?: string } | 'hang';

/** A real HTTP receiver on 127.0.0.1 (port 0): records every request; each path answers as told (200 by default). */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private port = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<Receiver> {
    const receiver: Receiver = new Receiver(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const rawBody = Buffer.concat(chunks);
          const path = req.url ?? '/';
          const request: ReceivedRequest = {
            path,
            headers: req.headers,
            rawBody,
            event: JSON.parse(rawBody.toString('utf8')),
            receivedAtMs: Date.now(),
          };
          const index = receiver.requestsTo(path).length;
          receiver.requests.push(request);
          const behaviour: Behaviour = receiver.behaviours.get(path) ?? (() => ({ status: 200 }));
          const answer = behaviour(index, request);
          if (answer === 'hang') return;
          res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? 'ok');
        });
      }),
    );
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.port = (receiver.server.address() as AddressInfo).port;
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  requestsTo(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Topics of one test run only (Kafka): `<topic>.<suffix>`; '' for the real names (in-process bus). */
export interface TopicOptions {
  topicSuffix?: string;
}

const topicOf = (topic: string, options: TopicOptions) =>
  options.topicSuffix ? `${topic}.${options.topicSuffix}` : topic;

/** The service with every consumer on the suffixed topics, so a shared broker's other traffic never reaches it. */
export function onTopicsOfThisRun(
  definition: ServiceDefinition,
  options: TopicOptions,
): ServiceDefinition {
  return {
    ...definition,
    async build(app, context) {
      const parts = await definition.build(app, context);
      return {
        ...parts,
        consumers: (parts.consumers ?? []).map((c) => ({
          ...c,
          topics: c.topics.map((t) => topicOf(t, options)),
        })),
      };
    },
  };
}

const message = <K extends keyof EventMap>(
  type: K,
  key: string,
  event: EventMap[K],
  options: TopicOptions = {},
) => ({
  topic: topicOf(EVENT_TOPICS[type], options),
  key,
  value: encodeEvent(type, event),
  headers: { [HEADER_EVENT_ID]: event.envelope.event_id, [HEADER_EVENT_TYPE]: type },
});

export interface EndpointInput {
  id?: string;
  tenantId: string;
  url: string;
  events?: string[];
  livemode?: boolean;
  secret?: string;
  version?: number;
}

/**
 * Publishes gateway.webhook-endpoint-changed.v2 (on gateway.webhook-endpoints) as the gateway's relay would, or
 * v1 (on gateway.directory) as earlier gateways did; resolves once applied (in-process bus).
 */
export async function publishEndpoint(
  bus: Bus,
  input: EndpointInput,
  options: TopicOptions = {},
  type:
    | 'gateway.webhook-endpoint-changed.v1'
    | 'gateway.webhook-endpoint-changed.v2' = 'gateway.webhook-endpoint-changed.v2',
): Promise<{ id: string; secret: string }> {
  const id = input.id ?? newId('we_');
  const secret = input.secret ?? `whsec_${newId('we_').slice(3)}`;
  await bus.publish([
    message(
      type,
      input.tenantId,
      {
        envelope: newEnvelope(type, {
          producer: 'gateway',
          tenantId: input.tenantId,
          livemode: null,
        }),
        webhook_endpoint_id: id,
        tenant_id: input.tenantId,
        url: input.url,
        events: input.events ?? ['*'],
        secret,
        livemode: input.livemode ?? false,
        version: input.version ?? 1,
      },
      options,
    ),
  ]);
  return { id, secret };
}

export type ChargeEventType = {
  [K in keyof EventMap]: EventMap[K] extends ChargeEvent
    ? ChargeEvent extends EventMap[K]
      ? K
      : never
    : never;
}[keyof EventMap];

export interface ChargeEventInput {
  tenantId: string;
  chargeId: string;
  livemode?: boolean;
  status?: string;
  requestId?: string | null;
  occurredAtMs?: number;
}

/** A charges event as the charges service's relay publishes it (keyed by charge id); returns it. */
export function chargeEvent(type: ChargeEventType, input: ChargeEventInput): ChargeEvent {
  const occurredAtMs = input.occurredAtMs ?? Date.now();
  const status = input.status ?? 'paid';
  return {
    envelope: newEnvelope(type, {
      producer: 'charges',
      tenantId: input.tenantId,
      livemode: input.livemode ?? false,
      requestId: input.requestId ?? 'req_charge1',
      occurredAtMs,
    }),
    charge: {
      charge_id: input.chargeId,
      seller_id: 'seller_1',
      status,
      amount_cents: 10_000,
      currency: 'BRL',
      payment_method: 'pix',
      capture_method: 'automatic',
      installments: 1,
      captured: true,
      paid_at: status === 'paid' ? occurredAtMs : null,
      refunded_cents: 0,
      chargeback_cents: 0,
      split: [],
      created_at: occurredAtMs,
      updated_at: occurredAtMs,
    },
    resource_json: JSON.stringify({
      id: input.chargeId,
      object: 'charge',
      status,
      amount_cents: 10_000,
      currency: 'BRL',
      payment_method: 'pix',
      livemode: input.livemode ?? false,
    }),
  };
}

export async function publishCharge(
  bus: Bus,
  type: ChargeEventType,
  input: ChargeEventInput,
  options: TopicOptions = {},
): Promise<ChargeEvent> {
  const event = chargeEvent(type, input);
  await bus.publish([message(type, input.chargeId, event, options)]);
  return event;
}

export const newTenant = (): string => newId('ten_');
export const newCharge = (): string => newId('ch_');

/** What the operator's delivery route answers for one delivery, with its attempts. */
export type DeliveryView = Static<typeof DeliveryWithAttemptsBody>;

/** A request to the service as the operator (through the gateway's operator principal). */
export const asOperator = (h: Harness, method: 'GET' | 'POST', url: string) =>
  h.service.app.inject({ method, url, headers: operatorHeaders() });

/** The delivery of `eventId` to `endpointId`, as the operator reads it; undefined before there is one. */
export async function deliveryOf(
  h: Harness,
  endpointId: string,
  eventId: string,
): Promise<DeliveryView | undefined> {
  const list = await asOperator(
    h,
    'GET',
    `/admin/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`,
  );
  if (list.statusCode !== 200)
    throw new Error(`deliveries answered ${list.statusCode}: ${list.body}`);
  const summary = list.json().data.find((d: { event_id: string }) => d.event_id === eventId);
  if (summary === undefined) return undefined;
  return (await asOperator(h, 'GET', `/admin/v1/webhook-deliveries/${summary.id}`)).json();
}
