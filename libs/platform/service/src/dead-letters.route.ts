import { Type } from '@sinclair/typebox';
import { isFramed } from '@pgw/contracts';
import { applyOnce, type Bus, type BusMessage, type DeadLetters } from '@pgw/platform-bus';
import { pagedQuery, type Db } from '@pgw/platform-db';
import {
  ApiError,
  isDatabaseUnavailable,
  ListEnvelope,
  listPage,
  notFound,
  Nullable,
  PagingQuery,
  pagingOf,
  requireOperator,
  type App,
} from '@pgw/platform-http';
import type { ConsumerDefinition } from './service';

const DeadLetterItem = Type.Object({
  object: Type.Literal('dead_letter'),
  id: Type.String(),
  status: Type.Union([Type.Literal('parked'), Type.Literal('replayed')]),
  consumer: Type.String(),
  event_id: Type.String(),
  event_type: Nullable(Type.String()),
  reason: Type.String(),
  error: Nullable(Type.String()),
  topic: Type.String(),
  partition: Nullable(Type.Integer()),
  offset: Nullable(Type.String()),
  key: Type.String(),
  parked_at: Type.String(),
  replayed_at: Nullable(Type.String()),
});

const DeadLetterBody = Type.Intersect([DeadLetterItem, Type.Object({ request_id: Type.String() })]);
const ListQuery = Type.Object(
  {
    ...PagingQuery,
    status: Type.Optional(Type.Union([Type.Literal('parked'), Type.Literal('replayed')])),
  },
  { additionalProperties: false },
);
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const ReplayAllBody = Type.Object({
  object: Type.Literal('dead_letter_replay'),
  replayed: Type.Integer(),
  still_parked: Type.Integer(),
  request_id: Type.String(),
});
const REPLAY_PAGE = 100;

interface DeadLetterRow {
  id: string;
  consumer: string;
  event_id: string;
  event_type: string | null;
  topic: string;
  partition: number | null;
  offset: string | null;
  key: string;
  payload: Buffer | Uint8Array;
  headers: Record<string, string> | string;
  reason: string;
  error: string | null;
  parked_at: Date | string;
  replayed_at: Date | string | null;
}

const iso = (value: Date | string): string => new Date(value).toISOString();

function resource(row: DeadLetterRow) {
  return {
    object: 'dead_letter' as const,
    id: row.id,
    status: row.replayed_at === null ? ('parked' as const) : ('replayed' as const),
    consumer: row.consumer,
    event_id: row.event_id,
    event_type: row.event_type,
    reason: row.reason,
    error: row.error,
    topic: row.topic,
    partition: row.partition,
    offset: row.offset,
    key: row.key,
    parked_at: iso(row.parked_at),
    replayed_at: row.replayed_at === null ? null : iso(row.replayed_at),
  };
}

export interface ParkingConsumer {
  definition: ConsumerDefinition;
  deadLetters: DeadLetters;
}

/**
 * The operator routes of a service's parked events (contract §5, forwarded by the gateway):
 * `GET /admin/v1/services/<service>/dead-letters` lists them, newest first; `POST …/{id}/replay` applies
 * one through its consumer's inbox, in the transaction that marks it replayed, so a second replay (or a
 * redelivery of the same event) changes nothing. A consumer that still cannot apply it answers 409
 * `event_not_replayable` and the event stays parked. `POST …/dead-letters/replay` replays every parked one.
 */
export function deadLetterRoutes(
  app: App,
  service: string,
  db: Db,
  bus: Bus,
  consumers: readonly ParkingConsumer[],
): void {
  const base = `/admin/v1/services/${service}/dead-letters`;
  app.get(
    base,
    { schema: { querystring: ListQuery, response: { 200: ListEnvelope(DeadLetterItem) } } },
    async (request) => {
      requireOperator(request);
      const { status } = request.query;
      const { page, limit } = pagingOf(request.query);
      const { rows, total } = await db.read((q) => {
        const query = q('dead_letters');
        if (status === 'parked') query.whereNull('replayed_at');
        if (status === 'replayed') query.whereNotNull('replayed_at');
        return pagedQuery<DeadLetterRow>(query, ['parked_at', 'id'], page, limit);
      });
      return { ...listPage(rows.map(resource), page, limit, total), request_id: request.id };
    },
  );

  /** Replays one parked event in its own transaction; undefined when there is no such dead letter. */
  const replay = (id: string, log: App['log']) =>
    db.tx(async (trx) => {
      const found = (await trx('dead_letters').where({ id }).forUpdate().first()) as
        DeadLetterRow | undefined;
      if (found === undefined || found.replayed_at !== null) return found;
      const consumer = consumers.find((c) => c.definition.name === found.consumer);
      const stored: BusMessage = {
        topic: found.topic,
        key: found.key,
        value: Buffer.from(found.payload),
        headers:
          typeof found.headers === 'string'
            ? (JSON.parse(found.headers) as Record<string, string>)
            : found.headers,
        ...(found.partition !== null ? { partition: found.partition } : {}),
        ...(found.offset !== null ? { offset: found.offset } : {}),
      };
      if (
        consumer === undefined ||
        consumer.deadLetters.verdict(stored, found.event_id)?.reason === 'unknown_type'
      ) {
        throw new ApiError(
          'event_not_replayable',
          `The ${found.consumer} consumer of ${service} does not know the event type ${found.event_type ?? '(none)'}: deploy the version that does, then replay.`,
        );
      }
      try {
        // Parked as it came off the wire (its type unknown then): read it as the consumer's handler now would.
        const message =
          bus.received !== undefined && isFramed(stored.value)
            ? await bus.received(stored)
            : stored;
        await applyOnce(
          db,
          trx,
          consumer.definition.name,
          consumer.definition.apply.bind(consumer.definition),
          message,
          found.event_id,
        );
      } catch (error) {
        if (isDatabaseUnavailable(error)) throw error; // 503: try again, nothing is lost
        log.warn(
          { err: error, dead_letter_id: found.id, event_id: found.event_id },
          'replay of a parked event failed; it stays parked',
        );
        throw new ApiError(
          'event_not_replayable',
          `The ${found.consumer} consumer of ${service} failed to apply event ${found.event_id}; it stays parked.`,
        );
      }
      const [updated] = (await trx('dead_letters')
        .where({ id: found.id })
        .update({ replayed_at: trx.fn.now() })
        .returning('*')) as DeadLetterRow[];
      return updated;
    });

  app.post(
    `${base}/:id/replay`,
    { schema: { params: IdParams, response: { 200: DeadLetterBody } } },
    async (request) => {
      requireOperator(request);
      const row = await replay(request.params.id, request.log);
      if (row === undefined) throw notFound('dead letter');
      return { ...resource(row), request_id: request.id };
    },
  );

  // After a deploy: every parked event, oldest first, each in its own transaction; one that still cannot be
  // applied stays parked and is counted, and the others go on.
  app.post(`${base}/replay`, { schema: { response: { 200: ReplayAllBody } } }, async (request) => {
    requireOperator(request);
    let replayed = 0;
    let stillParked = 0;
    let after: { parked_at: Date | string; id: string } | null = null;
    for (;;) {
      const cursor = after;
      const page = (await db.read((q) => {
        const query = q('dead_letters')
          .whereNull('replayed_at')
          .orderBy([{ column: 'parked_at' }, { column: 'id' }])
          .limit(REPLAY_PAGE)
          .select('id', 'parked_at');
        if (cursor !== null)
          query.whereRaw('(parked_at, id) > (?, ?)', [cursor.parked_at, cursor.id]);
        return query;
      })) as Array<{ id: string; parked_at: Date | string }>;
      for (const { id } of page) {
        try {
          const row = await replay(id, request.log);
          if (row !== undefined && row.replayed_at !== null) replayed++;
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          stillParked++;
        }
      }
      if (page.length < REPLAY_PAGE) break;
      after = page[page.length - 1] ?? null;
    }
    return {
      object: 'dead_letter_replay' as const,
      replayed,
      still_parked: stillParked,
      request_id: request.id,
    };
  });
}
