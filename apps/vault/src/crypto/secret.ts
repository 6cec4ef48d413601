import { inspect } from 'node:util';

/**
 * A value that must never reach a log line, a serialized body or an error message: card numbers, CVVs,
 * key material. `JSON.stringify`, `util.inspect` (what pino and console use) and string conversion all
 * print `[redacted]`; only `expose()` gives the value, so every use of it is visible in the code.
 */
export class Secret<T> {
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

  [inspect.custom](): string {
    return 'Secret([redacted])';
  }
}
