import { decodeEvent, TOPICS, type EventMap } from '@pgw/contracts';
import { HEADER_EVENT_TYPE } from '@pgw/platform-bus';
import type { Tx } from '@pgw/platform-db';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import { assert } from '@pgw/domain';

// Services keep local copies of the gateway's directory (tenants, sellers, pricing plans, webhook endpoints)
// from its events. Each event carries the entity's whole state and a version that grows with every change,
// so a copy keeps the highest version it has seen: a repeated, or a late and older, event changes nothing.
// `updated_at` is when this service applied the change, by its own clock.

/** A copy table: its name and its key (the entity's id). */
export interface CopyTable {
  name: string;
  key: string;
}

const IDENTIFIER = /^[a-z][a-z0-9_]{0,62}$/;

function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`invalid identifier ${name}`);
  return name;
}

/**
 * A migration step: `create table <name> (<key> text primary key, <columns>, version bigint not null,
 * updated_at timestamptz not null)`. `columns` are column definitions as SQL (`tenant_id text not null`).
 * `updatedAtDefaultNow` keeps the `default now()` of the copies created before this library (so a new
 * database equals an old one); every write through `upsertNewer` sets updated_at itself.
 */
export async function createCopyTable(
  trx: Tx,
  table: CopyTable,
  columns: readonly string[],
  options: { updatedAtDefaultNow?: boolean } = {},
): Promise<void> {
  const updatedAt =
    options.updatedAtDefaultNow === true
      ? 'updated_at timestamptz not null default now()'
      : 'updated_at timestamptz not null';
  const lines = [
    `${identifier(table.key)} text primary key`,
    ...columns,
    'version bigint not null',
    updatedAt,
  ];
  await trx.raw(`create table ${identifier(table.name)} (\n  ${lines.join(',\n  ')}\n)`);
}

/**
 * Writes `row` (the key and the entity's columns) with `version` and `updatedAt`, in one statement, unless the
 * copy already holds this version or a higher one. Answers whether the copy changed.
 */
export async function upsertNewer(
  trx: Tx,
  table: CopyTable,
  row: Record<string, unknown>,
  version: number,
  updatedAt: Date,
): Promise<boolean> {
  const name = identifier(table.name);
  const key = identifier(table.key);
  assert(key in row, 'directory.upsert-row-has-key', { table: table.name, key: table.key });
  const changed: unknown[] = await trx(name)
    .insert({ ...row, version, updated_at: updatedAt })
    .onConflict(key)
    .merge()
    .where(`${name}.version`, '<', trx.raw('excluded.version'))
    .returning(key);
  return changed.length > 0;
}

/**
 * Writes the copy of the entity a directory event carries (`upsertNewer` with the event's version): the
 * event's `columns`, the table's key among them, as the event has them, and `converted`, the columns the
 * copy keeps in another form (`mdr_bps` as JSON). Answers whether the copy changed.
 */
export function copyEvent<E extends { version: number }>(
  trx: Tx,
  table: CopyTable,
  event: E,
  columns: readonly (keyof E & string)[],
  now: Date,
  converted: Record<string, unknown> = {},
): Promise<boolean> {
  const row: Record<string, unknown> = {};
  for (const column of columns) row[column] = event[column];
  return upsertNewer(trx, table, { ...row, ...converted }, event.version, now);
}

export const DIRECTORY_EVENT_TYPES = [
  'gateway.tenant-changed.v1',
  'gateway.seller-changed.v1',
  'gateway.pricing-plan-changed.v1',
  'gateway.webhook-endpoint-changed.v1',
  'gateway.webhook-endpoint-changed.v2',
] as const satisfies ReadonlyArray<keyof EventMap>;

export type DirectoryEventType = (typeof DIRECTORY_EVENT_TYPES)[number];

/** What a service does with each directory event it copies; `now` is the service's clock at the event. */
export type DirectoryHandlers = {
  [T in DirectoryEventType]?: (trx: Tx, event: EventMap[T], now: Date) => Promise<unknown>;
};

/**
 * The `directory` consumer of a service: decodes each directory event the service has a handler for and
 * passes it on with the service's clock; the other directory events are not its business (skipped). Topics:
 * gateway.directory, and gateway.webhook-endpoints when a handler takes webhook-endpoint-changed.v2 (that
 * topic carries the endpoint's secret, which only the webhooks service reads).
 */
export function directoryConsumer(clock: Clock, handlers: DirectoryHandlers): ConsumerDefinition {
  const topics: string[] = [TOPICS.directory];
  if (handlers['gateway.webhook-endpoint-changed.v2'] !== undefined)
    topics.push(TOPICS.webhookEndpoints);
  return {
    name: 'directory',
    topics,
    async apply(trx, message) {
      const type = message.headers[HEADER_EVENT_TYPE] as DirectoryEventType | undefined;
      if (type === undefined || !Object.prototype.hasOwnProperty.call(handlers, type)) return;
      const handle = handlers[type] as
        ((trx: Tx, event: unknown, now: Date) => Promise<unknown>) | undefined;
      if (handle === undefined) return;
      await handle(trx, decodeEvent(type, message.value), clock.now());
    },
  };
}
