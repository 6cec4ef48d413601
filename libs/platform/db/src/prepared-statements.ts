/** A text sent this many times is named from then on. */
export const USES_BEFORE_NAMING = 3;
/**
 * Named statements per pool, at most, and their texts' length in all: each is prepared once on each connection
 * that sends it, and PostgreSQL keeps ~15 KiB plus ~80 bytes per character of text for one (measured: 17 KiB
 * for a one-line select, 81 KiB for a CTE of a 50-row insert), so a connection holds at most ~7 MiB of them.
 */
export const NAMED_MAX = 100;
export const NAMED_TEXT_MAX = 64 * 1024;
/** Texts counted towards naming, at most; the count starts again when it is full. */
const COUNTED_MAX = 2_000;
/**
 * A statement whose result has the columns of a whole row (`select *`, `returning *`, `t.*`) is never named:
 * when a migration of a newer replica adds a column, PostgreSQL refuses a prepared plan whose result type
 * changed ("cached plan must not change result type").
 */
const WHOLE_ROW = /(?:select|returning)\s+\*|\.\*/i;
/** feature_not_supported: the error of a prepared plan whose result type changed under it. */
const CACHED_PLAN_CHANGED = '0A000';

/** Whether a pool may ever send `text` as a named statement: not when its result is a whole row. */
export const mayBeNamed = (text: string): boolean => !WHOLE_ROW.test(text);

/**
 * Which statement texts a pool sends as named (prepared) statements: PostgreSQL then parses and plans each
 * once per connection rather than every time (a charge's claim statement: 130–180 → 50–63 µs of the
 * backend's CPU, docs/benchmarks.md). A text is named once it has been sent `USES_BEFORE_NAMING` times, so
 * a one-off (a migration, a report) is not kept; at most `NAMED_MAX` are, of `NAMED_TEXT_MAX` characters
 * in all, the first to qualify, which under load are the hot ones. A whole-row result is never named
 * (WHOLE_ROW). Should a prepared plan still fail on a changed result type, every name is dropped: the
 * statements are prepared again under new names, and only the statements that failed fail.
 */
export class PreparedStatements {
  private readonly counted = new Map<string, number>();
  private names = new Map<string, string>();
  private namedText = 0;
  private generation = 0;

  /** The name to send `text` under, or undefined to send it unnamed. */
  nameFor(text: string): string | undefined {
    const named = this.names.get(text);
    if (
      named !== undefined ||
      this.names.size >= NAMED_MAX ||
      this.namedText + text.length > NAMED_TEXT_MAX ||
      !mayBeNamed(text)
    )
      return named;
    const uses = (this.counted.get(text) ?? 0) + 1;
    if (uses < USES_BEFORE_NAMING) {
      if (this.counted.size >= COUNTED_MAX) this.counted.clear();
      this.counted.set(text, uses);
      return undefined;
    }
    this.counted.delete(text);
    const name = `pgw_${this.generation}_${this.names.size}`;
    this.names.set(text, name);
    this.namedText += text.length;
    return name;
  }

  /** After a statement failed with `error`: drops every name if a prepared plan's result type changed. */
  failed(error: unknown): void {
    if ((error as { code?: unknown } | null)?.code !== CACHED_PLAN_CHANGED) return;
    this.names = new Map();
    this.namedText = 0;
    this.generation += 1;
  }
}

/** What node-postgres's `Client#query` is given by knex: a config object and a callback. */
type QueryCallback = (error: Error | null, result: unknown) => void;
export interface PgConnection {
  query(config: unknown, ...rest: unknown[]): unknown;
}

/**
 * Makes one pooled connection (node-postgres's Client) send the texts `prepared` names as named statements:
 * every statement of the pool goes through it, in a transaction or not. A text, a stream (a submittable
 * object) or a config that names itself goes as it is.
 */
export function sendNamedStatements(connection: PgConnection, prepared: PreparedStatements): void {
  const query = connection.query.bind(connection);
  connection.query = (config: unknown, ...rest: unknown[]) => {
    const callback = rest.at(-1);
    if (
      typeof config !== 'object' ||
      config === null ||
      typeof callback !== 'function' ||
      'submit' in config ||
      'name' in config
    )
      return query(config, ...rest);
    const { text } = config as { text?: unknown };
    const name = typeof text === 'string' ? prepared.nameFor(text) : undefined;
    if (name === undefined) return query(config, ...rest);
    return query(
      { ...config, name },
      ...rest.slice(0, -1),
      (error: Error | null, result: unknown) => {
        if (error !== null) prepared.failed(error);
        (callback as QueryCallback)(error, result);
      },
    );
  };
}
