import { inspect } from 'node:util';

/**
 * A credential that must never reach a log line, a serialized object or an error message: a PSP's OAuth2
 * client secret, its access tokens and the private key of the client certificate, an acquirer's merchant key. `JSON.stringify`,
 * `util.inspect` (what pino and console use) and string conversion print `[redacted]`; only `expose()`
 * gives the value, so every use of it is visible in the code. (The vault's `Secret` is the same idea; it
 * lives in an app, which a library may not import.)
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

  [inspect.custom](): string {
    return 'Redacted([redacted])';
  }
}
