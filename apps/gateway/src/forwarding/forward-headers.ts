import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { context, propagation } from '@opentelemetry/api';
import type { KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import {
  PRINCIPAL_HEADER,
  requestBinding,
  signPrincipal,
  type Principal,
} from '@pgw/platform-http';

// What crosses the gateway. Inbound: never the client's Authorization (the service trusts only the signed
// principal), never a client's own principal or request id; hop-by-hop headers belong to one connection.
// Outbound: the service's headers (content-type, idempotent-replayed, retry-after, …) with the gateway's
// X-Request-Id.

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];
// A client's own trace context is not trusted either: the trace of a payment starts at the gateway.
const NEVER_FORWARDED = [
  'authorization',
  PRINCIPAL_HEADER,
  'x-request-id',
  'cookie',
  'traceparent',
  'tracestate',
  'baggage',
];

export interface ForwardIdentity {
  principal: Principal;
  /** The gateway's Ed25519 key (PRINCIPAL_PRIVATE_KEY), parsed once at start. */
  principalKey: KeyObject;
  /**
   * The request being forwarded, as the service will receive it (the gateway forwards the URL as it came):
   * the principal is signed for it, and the service refuses it on any other.
   */
  request: { method: string; url: string };
  requestId: string;
  /**
   * The client's address as the gateway saw it (request.ip: the socket, or what TRUSTED_PROXIES report).
   * Signed into an API key's principal, the one address a service believes (charges stores it as
   * buyer.ip); also appended to x-forwarded-for, whose earlier entries anyone may have written.
   */
  clientIp?: string;
}

/** Request headers for the service. `framing` also drops what the transport recomputes (host, length). */
export function forwardRequestHeaders(
  headers: IncomingHttpHeaders,
  identity: ForwardIdentity,
  options: { framing: boolean; hasBody: boolean },
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const drop = new Set([
    ...NEVER_FORWARDED,
    'transfer-encoding',
    ...(options.framing ? [...HOP_BY_HOP, 'host', 'content-length'] : []),
  ]);
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || drop.has(name)) continue;
    out[name] = value;
  }
  if (!options.hasBody) delete out['content-type'];
  if (identity.clientIp !== undefined && identity.clientIp !== '') {
    const prior = out['x-forwarded-for'];
    out['x-forwarded-for'] =
      prior === undefined
        ? identity.clientIp
        : `${Array.isArray(prior) ? prior.join(', ') : prior}, ${identity.clientIp}`;
  }
  const clientIp =
    identity.clientIp !== undefined && isIP(identity.clientIp) !== 0
      ? identity.clientIp
      : undefined;
  const principal =
    identity.principal.kind === 'api_key' && clientIp !== undefined
      ? { ...identity.principal, clientIp }
      : identity.principal;
  out[PRINCIPAL_HEADER] = signPrincipal(
    principal,
    requestBinding(identity.request.method, identity.request.url),
    identity.principalKey,
  );
  out['x-request-id'] = identity.requestId;
  // The service's work joins the gateway's trace, in both modes and whatever HTTP client carries it.
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  Object.assign(out, carrier);
  return out;
}

/** Response headers to copy back to the client; the transport sets length and framing itself. */
export function forwardResponseHeaders(
  headers: OutgoingHttpHeaders | IncomingHttpHeaders,
): Record<string, string | string[] | number> {
  const out: Record<string, string | string[] | number> = {};
  const drop = new Set([...HOP_BY_HOP, 'content-length', 'date', 'x-request-id']);
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || drop.has(name.toLowerCase())) continue;
    out[name] = value;
  }
  return out;
}
