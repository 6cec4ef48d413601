import Ajv from 'ajv';
import { reaisToCents } from './amounts';
import { WirePixNotification, type WirePixBody, type WirePixNotificationBody } from './wire';

// The PSP tells the receiver that Pix arrived by POSTing `{ "pix": [ … ] }` to `{webhookUrl}/pix` (the URL
// registered with PUT /webhook/{chave}); the same body reports a refund that reached a final status. The
// PSP authenticates itself with mutual TLS on our endpoint, but the body carries no signature, so a
// notification is a hint: whoever receives it confirms with `getPixCharge` (GET /cob/{txid}) before
// marking a charge paid. Polling GET /pix?inicio&fim (`listReceivedPix`) yields the same records when a
// notification was lost.

/** One refund (devolução) of a received Pix. */
export interface ReceivedPixRefund {
  refundId: string;
  /** The PACS.004 return id. */
  returnId: string;
  status: 'processing' | 'succeeded' | 'failed';
  amountCents: number;
}

/** One Pix received by the account, as the webhook and GET /pix report it. */
export interface ReceivedPix {
  endToEndId: string;
  /** The charge it paid (our `txidOf(reference)`), or null for a Pix sent to the key without a charge. */
  txid: string | null;
  amountCents: number;
  paidAt: string;
  refunds: ReceivedPixRefund[];
}

const ajv = new Ajv({ strict: false, allErrors: false });
const validateNotification = ajv.compile<WirePixNotificationBody>(WirePixNotification);

export function refundStatusOf(
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO',
): ReceivedPixRefund['status'] {
  return status === 'DEVOLVIDO'
    ? 'succeeded'
    : status === 'NAO_REALIZADO'
      ? 'failed'
      : 'processing';
}

/** Maps one wire Pix (already checked against WirePix, whose amount pattern makes the cents certain). */
export function toReceivedPix(w: WirePixBody): ReceivedPix {
  return {
    endToEndId: w.endToEndId,
    txid: w.txid !== undefined && w.txid !== '' ? w.txid : null,
    amountCents: reaisToCents(w.valor) ?? 0,
    paidAt: w.horario,
    refunds: (w.devolucoes ?? []).map((d) => ({
      refundId: d.id,
      returnId: d.rtrId,
      status: refundStatusOf(d.status),
      amountCents: reaisToCents(d.valor) ?? 0,
    })),
  };
}

/**
 * Reads a webhook body. A body that is not the standard's shape is refused whole (answer it with 400:
 * the PSP retries, and a PSP that keeps sending it is a conversation with the PSP, not data to guess at).
 */
export function parsePixNotification(
  body: unknown,
): { ok: true; pix: ReceivedPix[] } | { ok: false; reason: string } {
  body = withRefundLists(body);
  if (!validateNotification(body)) {
    const first = validateNotification.errors?.[0];
    return {
      ok: false,
      reason: `not an API Pix notification: ${first !== undefined ? `${first.instancePath || '/'} ${first.message ?? ''}`.trim() : 'invalid'}`,
    };
  }
  return { ok: true, pix: body.pix.map(toReceivedPix) };
}

// The schema makes `devolucoes` an array, but the standard's own example (pixWebhook1) sends one refund
// as a bare object; a PSP that copied the example is read as sending a list of one.
function withRefundLists(body: unknown): unknown {
  const pix = (body as { pix?: unknown } | null)?.pix;
  if (!Array.isArray(pix)) return body;
  return {
    ...(body as object),
    pix: pix.map((p: unknown) => {
      const devolucoes = (p as { devolucoes?: unknown } | null)?.devolucoes;
      return typeof devolucoes === 'object' && devolucoes !== null && !Array.isArray(devolucoes)
        ? { ...(p as object), devolucoes: [devolucoes] }
        : p;
    }),
  };
}
