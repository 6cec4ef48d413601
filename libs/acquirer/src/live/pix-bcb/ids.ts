import { createHash } from 'node:crypto';

// The API Pix lets the receiver choose the charge's `txid` (PUT /cob/{txid}) and the refund's `id`
// (PUT /pix/{e2eid}/devolucao/{id}). Choosing them as a pure function of our reference is what makes
// every call idempotent: a retry after a timeout addresses the same resource at the PSP, and a lookup by
// reference needs no table of ours. A hash, not the reference itself, because references may carry
// `_ - . :` and be up to 120 characters long, which the txid pattern [a-zA-Z0-9]{26,35} refuses; 35 hex
// digits keep 140 bits, far beyond any chance of two references meeting.

const ID_CHARS = 35;

function derive(purpose: string, reference: string): string {
  // The purpose keeps a charge's txid and a refund's id apart even if one reference were used for both.
  return createHash('sha256')
    .update(`pgw:pix-bcb:${purpose}:v1:${reference}`)
    .digest('hex')
    .slice(0, ID_CHARS);
}

/** The cob/cobv txid of the charge whose reference this is: 35 lower-case hex characters. */
export function txidOf(reference: string): string {
  return derive('txid', reference);
}

/** The devolução id of the refund whose reference this is: 35 lower-case hex characters. */
export function refundIdOf(reference: string): string {
  return derive('devolucao', reference);
}
