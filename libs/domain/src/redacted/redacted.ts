// node:util's inspect.custom is this registered symbol; naming it so keeps the domain free of Node imports
// (the dashboard bundles @pgw/domain for a browser).
const INSPECT_CUSTOM = Symbol.for('nodejs.util.inspect.custom');

/**
 * A value that must never reach a log line, a serialized body or an error message: card numbers, CVVs,
 * key material, a PSP's client secret and access tokens, an acquirer's merchant key. `JSON.stringify`,
 * `util.inspect` (what pino and console use) and string conversion all print `[redacted]`; only
 * `expose()` gives the value, so every use of it is visible in the code.
 */
export class Redacted<T> {
  readonly #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  expose(): T {
    return this.#value;
  }

  toJSON(): string {
    return '[redacted]';
  }

  toString(): string {
    return '[redacted]';
  }

  [INSPECT_CUSTOM](): string {
    return 'Redacted([redacted])';
  }
}
