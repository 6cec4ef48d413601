import { Agent, request as httpsRequest } from 'node:https';
import { classifyTransportError } from '../../sim-acquirer';
import type { BcbPixConfig, BcbPixTlsMaterial } from './config';
import { Redacted } from '@pgw/domain';

// HTTP over mutual TLS to one PSP, with the OAuth2 client-credentials token that every API Pix call
// carries. Two things are decided here and nowhere else: what a transport failure means for the port
// (nothing happened, or outcome unknown), and how long a token is reused.

/** An answer larger than this is not an API Pix answer (a page of /pix is at most 1000 short records). */
const RESPONSE_BYTES_MAX = 4 * 1024 * 1024;
/** A token is renewed this long before the PSP says it expires, so a call never leaves with a dying one. */
const TOKEN_REFRESH_MARGIN_MS = 30_000;

export interface HttpAnswer {
  statusCode: number;
  /** Parsed JSON when the body was JSON, the raw text otherwise, null when empty. */
  body: unknown;
}

export type TransportOutcome =
  | { ok: true; answer: HttpAnswer }
  | { ok: false; kind: 'unavailable' | 'timeout'; message: string };

// TLS errors: the PSP refused the session (our certificate, its CA) before any HTTP request was read, so
// nothing was applied. Node reports them with these codes on the socket error.
const TLS_CODE =
  /^(ERR_SSL_|ERR_TLS_|EPROTO$|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|ERR_OSSL_)/;

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  let e: unknown = error;
  for (let depth = 0; depth < 8 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    e = (e as { cause?: unknown }).cause;
  }
  return codes;
}

/** What a thrown transport error means for the port: a refused TLS session is `unavailable`; the rest as for every adapter. */
export function classifyPixTransportError(error: unknown): {
  kind: 'unavailable' | 'timeout';
  message: string;
} {
  const tls = codesOf(error).find((code) => TLS_CODE.test(code));
  if (tls !== undefined)
    return { kind: 'unavailable', message: `the PSP refused the TLS session (${tls})` };
  return classifyTransportError(error);
}

export interface PixTransportOptions {
  config: Pick<BcbPixConfig, 'tokenUrl' | 'clientId' | 'clientSecret' | 'scopes' | 'timeoutMs'>;
  tls: BcbPixTlsMaterial;
  /** Milliseconds since the epoch; tests move it to expire a token. */
  now?: () => number;
  log?: { info(message: string): void; warn(message: string): void };
}

interface CachedToken {
  value: Redacted<string>;
  renewAtMs: number;
}

export class PixTransport {
  // Private fields (#): `util.inspect` of the transport never walks into the agent's key or the token.
  readonly #agent: Agent;
  private readonly now: () => number;
  #token: CachedToken | null = null;
  // Concurrent calls that find no token share one token request instead of each asking for one.
  private pendingToken: Promise<
    | { ok: true; token: Redacted<string> }
    | { ok: false; kind: 'unavailable' | 'timeout'; message: string }
  > | null = null;

  constructor(private readonly options: PixTransportOptions) {
    this.now = options.now ?? Date.now;
    this.#agent = new Agent({
      cert: options.tls.cert,
      key: options.tls.key.expose(),
      ...(options.tls.ca !== null ? { ca: options.tls.ca } : {}),
      keepAlive: true,
      // A bound on sockets to one PSP: Pix calls are short and a PSP rate-limits per client.
      maxSockets: 16,
    });
  }

  close(): void {
    this.#agent.destroy();
  }

  /** Forgets the cached token (the PSP answered 401: it was revoked or expired early). */
  invalidateToken(): void {
    this.#token = null;
  }

  /** The current access token, from the cache or a new token request. A failure to get one means no Pix call was sent. */
  async accessToken(): Promise<
    | { ok: true; token: Redacted<string> }
    | { ok: false; kind: 'unavailable' | 'timeout'; message: string }
  > {
    if (this.#token !== null && this.now() < this.#token.renewAtMs)
      return { ok: true, token: this.#token.value };
    if (this.pendingToken === null) {
      this.pendingToken = this.requestToken().finally(() => {
        this.pendingToken = null;
      });
    }
    return this.pendingToken;
  }

  private async requestToken(): Promise<
    | { ok: true; token: Redacted<string> }
    | { ok: false; kind: 'unavailable' | 'timeout'; message: string }
  > {
    const { config } = this.options;
    const basic = Buffer.from(
      `${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret.expose())}`,
    ).toString('base64');
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      scope: config.scopes,
    }).toString();
    const outcome = await this.send(
      'POST',
      config.tokenUrl,
      { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      form,
    );
    // Whatever went wrong, no Pix operation was sent: a token failure is never an unknown outcome.
    if (!outcome.ok)
      return {
        ok: false,
        kind: 'unavailable',
        message: `no access token from the PSP: ${outcome.message}`,
      };
    const { statusCode, body } = outcome.answer;
    if (statusCode !== 200) {
      // The body of a refused token request is not repeated: some servers echo what they were sent.
      this.options.log?.warn(`the PSP's token endpoint answered ${statusCode}`);
      return {
        ok: false,
        kind: 'unavailable',
        message: `the PSP refused our client credentials (token endpoint answered ${statusCode})`,
      };
    }
    const record = body as { access_token?: unknown; expires_in?: unknown } | null;
    const accessToken = record?.access_token;
    const expiresIn = Number(record?.expires_in);
    if (
      typeof accessToken !== 'string' ||
      accessToken === '' ||
      !Number.isFinite(expiresIn) ||
      expiresIn <= 0
    ) {
      return {
        ok: false,
        kind: 'unavailable',
        message: 'the PSP answered the token request without a usable access_token and expires_in',
      };
    }
    const lifetimeMs = expiresIn * 1000;
    // Keep a margin, but never more than half the lifetime, so that a short-lived token is still reused.
    const renewAtMs = this.now() + lifetimeMs - Math.min(TOKEN_REFRESH_MARGIN_MS, lifetimeMs / 2);
    this.#token = { value: new Redacted(accessToken), renewAtMs };
    this.options.log?.info(`obtained a PSP access token valid for ${expiresIn} s`);
    return { ok: true, token: this.#token.value };
  }

  /** One API Pix call with the bearer token; a 401 renews the token and tries once more (the PSP did not act on a 401). */
  async call(
    method: 'GET' | 'PUT' | 'PATCH' | 'POST',
    url: string,
    body?: unknown,
  ): Promise<TransportOutcome> {
    for (let attempt = 1; ; attempt++) {
      const token = await this.accessToken();
      if (!token.ok) return token;
      const payload = body !== undefined ? JSON.stringify(body) : undefined;
      const headers: Record<string, string> = {
        authorization: `Bearer ${token.token.expose()}`,
        accept: 'application/json',
      };
      if (payload !== undefined) headers['content-type'] = 'application/json';
      const outcome = await this.send(method, url, headers, payload);
      if (outcome.ok && outcome.answer.statusCode === 401 && attempt < 2) {
        this.invalidateToken();
        continue;
      }
      return outcome;
    }
  }

  private send(
    method: string,
    url: string,
    headers: Record<string, string>,
    payload: string | undefined,
  ): Promise<TransportOutcome> {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome: TransportOutcome): void => {
        if (!settled) {
          settled = true;
          resolve(outcome);
        }
      };
      const req = httpsRequest(
        url,
        {
          method,
          agent: this.#agent,
          headers: {
            ...headers,
            ...(payload !== undefined
              ? { 'content-length': String(Buffer.byteLength(payload)) }
              : {}),
          },
          signal: AbortSignal.timeout(this.options.config.timeoutMs),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes > RESPONSE_BYTES_MAX) {
              res.destroy();
              settle({
                ok: false,
                kind: 'timeout',
                message: 'the PSP answered with an oversized body',
              });
              return;
            }
            chunks.push(chunk);
          });
          res.on('error', (error) => settle({ ok: false, ...classifyPixTransportError(error) }));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text === '' ? null : text;
            if (text !== '' && /json/i.test(String(res.headers['content-type'] ?? ''))) {
              try {
                parsed = JSON.parse(text);
              } catch {
                settle({
                  ok: false,
                  kind: 'timeout',
                  message: `the PSP answered ${res.statusCode ?? 0} with unreadable JSON`,
                });
                return;
              }
            }
            settle({ ok: true, answer: { statusCode: res.statusCode ?? 0, body: parsed } });
          });
        },
      );
      req.on('error', (error) => settle({ ok: false, ...classifyPixTransportError(error) }));
      req.end(payload);
    });
  }
}
