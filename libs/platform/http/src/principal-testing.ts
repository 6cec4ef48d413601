import {
  PRINCIPAL_HEADER,
  generatePrincipalKeys,
  requestBinding,
  signPrincipal,
  type Principal,
  type PrincipalKeyPair,
} from './principal';

// Test support (no shipped code path uses it): specs that call a service directly play the gateway's
// part. A spec writes the principal it wants once (`header`), as an integrator holds one API key for
// every request; an app passed to `bind` signs it, on each inject, for that request's method and URL, as
// the gateway signs each request it forwards. A real signed principal (one a service forwards to a peer)
// passes through untouched, so the peers' own checks are what the specs exercise. An unbound header that
// reaches a service is not a signature: it is refused (401).

const UNBOUND = 'unbound-test-principal.';
const BASE_URL = 'http://localhost';

interface InjectOptions {
  method?: string;
  url?: unknown;
  query?: unknown;
  headers?: Record<string, unknown>;
}

/** The URL light-my-request will deliver (it parses with WHATWG URL and merges `query`), as path + search. */
function deliveredUrl(url: string, query: unknown): string {
  const parsed = new URL(url.startsWith('//') ? BASE_URL + url : url, BASE_URL);
  if (typeof query === 'string') {
    const extra = new URLSearchParams(query);
    for (const key of extra.keys()) {
      parsed.searchParams.delete(key);
      for (const value of extra.getAll(key)) parsed.searchParams.append(key, value);
    }
  } else if (typeof query === 'object' && query !== null) {
    for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
      if (Array.isArray(value)) {
        parsed.searchParams.delete(key);
        for (const v of value) parsed.searchParams.append(key, String(v));
      } else {
        parsed.searchParams.set(key, String(value));
      }
    }
  }
  return parsed.pathname + parsed.search;
}

export class TestPrincipals {
  readonly keys: PrincipalKeyPair = generatePrincipalKeys();

  /** The verifying key to give the services under test. */
  get publicKey(): PrincipalKeyPair['publicKey'] {
    return this.keys.publicKey;
  }

  /** A header value standing for `principal` until a bound app signs it for the request it travels with. */
  header(principal: Principal): string {
    return UNBOUND + Buffer.from(JSON.stringify(principal)).toString('base64url');
  }

  /** `principal` signed for one request, for callers that do not go through a bound app (fetch over HTTP). */
  sign(principal: Principal, method: string, url: string): string {
    return signPrincipal(principal, requestBinding(method, url), this.keys.privateKey);
  }

  /** Makes `app.inject` sign every unbound header for the request it carries it on. */
  bind<A extends { inject: unknown }>(app: A): A {
    const original = (app.inject as (opts?: unknown, cb?: unknown) => unknown).bind(app);
    (app as { inject: unknown }).inject = (opts?: unknown, cb?: unknown) =>
      original(this.signed(opts), cb);
    return app;
  }

  private signed(opts: unknown): unknown {
    if (typeof opts !== 'object' || opts === null) return opts;
    const options = opts as InjectOptions;
    const value = options.headers?.[PRINCIPAL_HEADER];
    if (typeof value !== 'string' || !value.startsWith(UNBOUND) || typeof options.url !== 'string')
      return opts;
    const principal = JSON.parse(
      Buffer.from(value.slice(UNBOUND.length), 'base64url').toString('utf8'),
    ) as Principal;
    const token = this.sign(
      principal,
      options.method ?? 'GET',
      deliveredUrl(options.url, options.query),
    );
    return { ...options, headers: { ...options.headers, [PRINCIPAL_HEADER]: token } };
  }
}
