import { verifyWebhook } from '@pgw/webhook-signature';
import type { webhooks } from './generated/api';

// Verifying a delivery (contract §7): `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
// The MAC covers the raw bytes as received, so constructEvent takes the body before any JSON parsing,
// and `t`, so a captured delivery replayed later is refused once it is older than the tolerance.

/** The events of contract §7, as the document's `webhooks` lists them. */
export type WebhookEventType = Extract<keyof webhooks, string>;

export interface WebhookEvent {
  id: string;
  object: 'event';
  type: WebhookEventType | (string & {});
  created_at: string;
  livemode: boolean;
  /** The resource as the API returns it: a charge, a refund, a chargeback, an anticipation, a settlement. */
  data: { object: Record<string, unknown> & { id: string; object: string } };
  /** The API request that caused the event, when one did. */
  request_id: string | null;
}

export interface ConstructEventOptions {
  /** How far the signature's `t` may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /** Now, in Unix seconds (default: the system clock). */
  nowSeconds?: number;
}

/** Why a delivery was refused: no usable header, a `t` out of tolerance (maybe a replay), or no matching v1. */
export type SignatureFailure =
  'header_missing_or_malformed' | 'timestamp_outside_tolerance' | 'signature_mismatch';

export class SignatureVerificationError extends Error {
  constructor(readonly reason: SignatureFailure) {
    super(`webhook signature: ${reason.replace(/_/g, ' ')}`);
    this.name = 'SignatureVerificationError';
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The event of a delivery, once its X-Signature header is verified against `secret` (or any of the
 * secrets, during a rotation) within the tolerance. Throws SignatureVerificationError otherwise.
 */
export function constructEvent(
  rawBody: string | Uint8Array,
  header: string | string[] | null | undefined,
  secret: string | readonly string[],
  options: ConstructEventOptions = {},
): WebhookEvent {
  const result = verifyWebhook({
    rawBody,
    header,
    secrets: typeof secret === 'string' ? [secret] : secret,
    ...(options.toleranceSeconds !== undefined
      ? { toleranceSeconds: options.toleranceSeconds }
      : {}),
    ...(options.nowSeconds !== undefined ? { nowSeconds: options.nowSeconds } : {}),
  });
  if (!result.ok) throw new SignatureVerificationError(result.reason);
  return JSON.parse(
    typeof rawBody === 'string' ? rawBody : decoder.decode(rawBody),
  ) as WebhookEvent;
}
