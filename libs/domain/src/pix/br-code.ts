import { crc16CcittFalse } from './crc16';
import { parseTlv, tlv, type TlvField } from './tlv';

// Pix BR Code (EMV QRCPS-MPM), the "copia e cola" string behind the QR code; see brazil-payments.md §4.9.

const PIX_GUI = 'br.gov.bcb.pix';
const MERCHANT_NAME_CHARS_MAX = 25;
const MERCHANT_CITY_CHARS_MAX = 15;
// EMV limits txid in field 62-05 to 25 characters; '***' means "none" (the txid is then in the location).
const TXID_PATTERN = /^(\*\*\*|[A-Za-z0-9]{1,25})$/;

interface BrCodeCommon {
  merchantName: string;
  merchantCity: string;
  amountCents: number;
  txid: string;
}

/** Dynamic (location URL from the PSP, single use) or static (Pix key): exactly one of the two. */
export type BrCodeInput = BrCodeCommon &
  ({ locationUrl: string; pixKey?: undefined } | { pixKey: string; locationUrl?: undefined });

/**
 * Builds the BR Code. Name and city are reduced to upper-case ASCII because readers count lengths in bytes
 * and several choke on accents; a value that cannot be encoded (txid, amount, too-long key) throws
 * RangeError, since the caller controls every input here.
 */
export function buildBrCode(input: BrCodeInput): string {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents < 1)
    throw new RangeError('amountCents must be a positive integer');
  if (!TXID_PATTERN.test(input.txid))
    throw new RangeError('txid must be 1 to 25 letters and digits, or ***');
  const name = sanitizeText(input.merchantName, MERCHANT_NAME_CHARS_MAX);
  const city = sanitizeText(input.merchantCity, MERCHANT_CITY_CHARS_MAX);
  if (name === '' || city === '')
    throw new RangeError('merchantName and merchantCity need at least one letter or digit');

  const account =
    input.locationUrl !== undefined
      ? tlv('00', PIX_GUI) + tlv('25', input.locationUrl.replace(/^https?:\/\//i, '')) // the standard stores it without scheme
      : tlv('00', PIX_GUI) + tlv('01', input.pixKey);

  const body =
    tlv('00', '01') +
    (input.locationUrl !== undefined ? tlv('01', '12') : '') + // 12: dynamic, valid once
    tlv('26', account) +
    tlv('52', '0000') +
    tlv('53', '986') +
    tlv('54', formatAmount(input.amountCents)) +
    tlv('58', 'BR') +
    tlv('59', name) +
    tlv('60', city) +
    tlv('62', tlv('05', input.txid)) +
    '6304';
  // The CRC covers its own id and length ('6304'), so it is appended last.
  return body + crc16CcittFalse(body);
}

export type BrCodeVerification = { ok: true; fields: TlvField[] } | { ok: false; reason: string };

/** Checks a BR Code's TLV structure (top level, 26 and 62 templates), mandatory fields and CRC. */
export function verifyBrCode(payload: string): BrCodeVerification {
  const parsed = parseTlv(payload);
  if (!parsed.ok) return { ok: false, reason: `malformed TLV: ${parsed.reason}` };
  const { fields } = parsed;
  if (fields[0]?.id !== '00' || fields[0].value !== '01')
    return { ok: false, reason: 'must start with 000201' };
  const last = fields[fields.length - 1];
  if (last?.id !== '63' || !/^[0-9A-Fa-f]{4}$/.test(last.value))
    return { ok: false, reason: 'must end with field 63 holding 4 hex digits' };
  for (const id of ['26', '52', '53', '58', '59', '60']) {
    if (!fields.some((f) => f.id === id)) return { ok: false, reason: `field ${id} missing` };
  }
  const account = parseTlv(fields.find((f) => f.id === '26')?.value ?? '');
  if (!account.ok) return { ok: false, reason: 'field 26 is not valid TLV' };
  if (account.fields[0]?.id !== '00' || account.fields[0].value.toLowerCase() !== PIX_GUI)
    return { ok: false, reason: 'field 26 must start with GUI br.gov.bcb.pix' };
  const additional = fields.find((f) => f.id === '62');
  if (additional !== undefined && !parseTlv(additional.value).ok)
    return { ok: false, reason: 'field 62 is not valid TLV' };
  const expectedCrc = crc16CcittFalse(payload.slice(0, -4));
  if (last.value.toUpperCase() !== expectedCrc)
    return { ok: false, reason: `CRC mismatch: expected ${expectedCrc}` };
  return { ok: true, fields };
}

/** 4900 → '49.00', 333 → '3.33': field 54 is a dot-decimal amount. */
function formatAmount(amountCents: number): string {
  return `${Math.floor(amountCents / 100)}.${String(amountCents % 100).padStart(2, '0')}`;
}

function sanitizeText(text: string, maxChars: number): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '') // 'São' → 'Sao': drop the accents, keep the letters
    .toUpperCase()
    .replace(/[^A-Z0-9 .-]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, maxChars)
    .trim();
}
