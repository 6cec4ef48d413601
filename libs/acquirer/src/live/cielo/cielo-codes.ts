import { assert } from '@pgw/domain';
import type { AcquirerRejectionCode, AuthorizationStatus, RefusedReason } from '../../port';

// Cielo's codes in our terms. Four tables of the manual, four maps; every documented code has an explicit
// entry (cielo-codes.spec.ts fails when fixtures/return-codes.json lists a code that has none), and a code
// the manual does not list gets the safest reading, never an approval.

/** Codes are compared without leading zeros and spaces: Cielo answers "05" where the ABECS table says 5, "BP 171" for BP171. */
export function normalizeCode(code: string | number): string {
  const text = String(code).replace(/\s+/g, '').toUpperCase();
  return /^[0-9]+$/.test(text) ? String(Number.parseInt(text, 10)) : text;
}

function table<T>(
  groups: ReadonlyArray<readonly [T, ReadonlyArray<string | number>]>,
): ReadonlyMap<string, T> {
  const map = new Map<string, T>();
  for (const [meaning, codes] of groups) {
    for (const code of codes) {
      const key = normalizeCode(code);
      // One meaning per code: a code listed twice would make the table's reading depend on its order.
      assert(!map.has(key), 'cielo-codes.listed-once', { code: key });
      map.set(key, meaning);
    }
  }
  return map;
}

// ── Transactional status (`Payment.Status`, "Transactional status") ─────────────────────────────────

/**
 * `unknown`: Cielo has not decided (NotFinished, Pending) or the status is one this adapter never asks for
 * (Scheduled recurrence); the outcome is read as unknown, to be asked again by reference.
 * `refused`: the issuer declined; the return code tells why. `voided` and `refunded` depend on whether
 * money was captured (a voided hold is `canceled`; a refunded sale stays `captured` with its refunds).
 */
export type CieloStatusMeaning =
  | Exclude<AuthorizationStatus, 'canceled' | 'refused'>
  | 'refused'
  | 'voided'
  | 'refunded'
  | 'unknown';

export const CIELO_STATUS: Readonly<Record<number, CieloStatusMeaning>> = {
  0: 'unknown', // NotFinished: waiting for a status update
  1: 'authorized', // Authorized: apt to be captured
  2: 'captured', // PaymentConfirmed
  3: 'refused', // Declined by the authorizer
  10: 'voided', // Voided
  11: 'refunded', // Refunded: canceled after the day of the authorization
  12: 'unknown', // Pending: waiting for the financial institution
  13: 'failed', // Aborted: canceled by a processing failure
  20: 'unknown', // Scheduled recurrence: never created by this adapter
};

// ── Sale return codes (`Payment.ReturnCode` of a sale: ABECS table, "Other return codes", sandbox table) ──

/**
 * What a sale's return code says when the status is Declined. `approved` codes (00, 11, …) never decide
 * an approval: the status does, as the manual says; under a Declined status they read as a plain decline.
 * Where one number means different things per brand (4 is "retry" for Elo and "collect card" for Visa),
 * the reading that asks for no retry wins. The sandbox's own codes (57 expired, 70 card problem) mean
 * something else in production; production's meaning is the one mapped.
 */
export type SaleCodeMeaning = RefusedReason | 'approved';

export const SALE_RETURN_CODES: ReadonlyMap<string, SaleCodeMeaning> = table<SaleCodeMeaning>([
  ['approved', ['00', '09', '11', 'FF']],
  ['insufficient_funds', ['51', '116', '121', 'A5', '61', 'N4', '65', '70', 'DM', 'BL']],
  ['expired_card', ['54', '101', 'BV']],
  [
    // The issuer did not decide: a system, communication or processing failure (a retry may pass).
    'processing_error',
    [
      '19',
      '30',
      '85',
      '89',
      '90',
      '91',
      '96',
      '98',
      '99',
      '475',
      '911',
      '912',
      '999',
      'A1',
      'AE',
      'AA',
      'AF',
      'AG',
      'BD',
      'BO',
      'BP900',
      'BP901',
      'BP902',
      'BP903',
      'BP904',
    ],
  ],
  [
    'card_declined',
    [
      // ABECS (Elo, Visa, Mastercard/Hiper columns)
      '01',
      '02',
      '03',
      '04',
      '05',
      '06',
      '07',
      '12',
      '13',
      '14',
      '15',
      '21',
      '22',
      '23',
      '24',
      '25',
      '28',
      '38',
      '39',
      '41',
      '43',
      '46',
      '52',
      '53',
      '55',
      '56',
      '57',
      '58',
      '59',
      '60',
      '62',
      '63',
      '64',
      '67',
      '72',
      '74',
      '75',
      '76',
      '77',
      '78',
      '79',
      '80',
      '81',
      '82',
      '83',
      '86',
      '88',
      '92',
      '93',
      '94',
      '97',
      'N0',
      'N3',
      'N7',
      'N8',
      'AB',
      'AC',
      'P5',
      'P6',
      'B1',
      'B2',
      'R0',
      'R1',
      'R2',
      'R3',
      '6P',
      'FM',
      // ABECS (Amex column, and Amex's codes as Cielo answers them)
      '100',
      '106',
      '109',
      '110',
      '115',
      '117',
      '122',
      '180',
      '181',
      '200',
      'FA',
      'A2',
      'A3',
      'A4',
      'A6',
      'A7',
      'FD',
      '08',
      'DA',
      'JB',
      // "Other return codes"
      'AH',
      'AI',
      'AJ',
      'AV',
      'BM',
      'BN',
      'BP',
      'BP171',
      'BP176',
      'BR',
      'C1',
      'C2',
      'C3',
      'CF',
      'CG',
      'DF',
      'DQ',
      'DS',
      'EB',
      'EE',
      'EK',
      'FC',
      'FE',
      'FG',
      'GA',
      'GD',
      'GF',
      'GK',
      'GT',
      'HJ',
      'IA',
      'KA',
      'KB',
      'KE',
      'NR',
      'RP',
      'SC',
      'U3',
    ],
  ],
]);

/** The refusal reason of a Declined sale; a code the manual does not list is a plain decline. */
export function refusedReasonOf(returnCode: string | number | undefined): RefusedReason {
  const meaning =
    returnCode === undefined ? undefined : SALE_RETURN_CODES.get(normalizeCode(returnCode));
  return meaning === undefined || meaning === 'approved' ? 'card_declined' : meaning;
}

// ── Cancellation return codes (PUT void, total and partial: "Cancellation Return Codes") ─────────────

/**
 * `succeeded`: the void went through. `retry`: Cielo says it did not act ("processing failed, try again"):
 * nothing happened. `unknown`: a time-out, or an identical request still pending: the outcome is unknown.
 * `not_found`, `exceeds`, `not_allowed` (state, deadline, product, an existing dispute), `invalid`: the
 * request was refused and nothing changed. `declined` and `merchant_balance`: Cielo examined the refund and
 * declined it (a refund that failed, not a malformed one).
 */
export type VoidCodeMeaning =
  | 'succeeded'
  | 'retry'
  | 'unknown'
  | 'not_found'
  | 'exceeds'
  | 'not_allowed'
  | 'invalid'
  | 'declined'
  | 'merchant_balance';

export const VOID_RETURN_CODES: ReadonlyMap<string, VoidCodeMeaning> = table<VoidCodeMeaning>([
  ['succeeded', ['0', '9']],
  ['retry', ['5', '57', '97', '99', '117']],
  ['unknown', ['10', '98', '223', '475', '476', '504', '9016']],
  ['not_found', ['3', '52', '77', '116', '576']],
  ['exceeds', ['51', '102']],
  ['not_allowed', ['17', '40', '41', '42', '53', '100', '101', '120', '121', '130']],
  ['invalid', ['58', '60', '108', '160', '206', '209', '215', '217', '221']],
  ['declined', ['54', '103', '104', '105', '106', '107', '477']],
  ['merchant_balance', ['55', '56', '72', '76']],
]);

export function voidMeaningOf(returnCode: string | number | undefined): VoidCodeMeaning {
  // No code, or one the manual does not list, on a void: whether money moved is not known.
  return (
    (returnCode === undefined ? undefined : VOID_RETURN_CODES.get(normalizeCode(returnCode))) ??
    'unknown'
  );
}

// ── API error codes (a 400's `[{ Code, Message }]`: "API Error Codes") ─────────────────────────────

/**
 * A rejection of ours, or `unavailable` where Cielo refused the merchant itself (credentials, IP allow-list,
 * a product not enabled): nothing happened, and no request of the caller's can fix it.
 */
export type ApiErrorMeaning = AcquirerRejectionCode | 'unavailable';

export const API_ERROR_CODES: ReadonlyMap<string, ApiErrorMeaning> = table<ApiErrorMeaning>([
  [
    'unavailable',
    [
      101, 114, 115, 116, 120, 129, 131, 132, 170, 171, 172, 173, 181, 194, 212, 216, 300, 301, 306,
      310, 314, 319, 322, 323,
    ],
  ],
  ['card_number_invalid', [118, 127, 128, 174, 177, 185, 213]],
  ['card_not_found', [130, 180]],
  ['authorization_not_found', [303, 307, 313, 318]],
  ['reference_reused', [302]],
  ['not_capturable', [308]],
  ['not_cancelable', [309]],
  ['not_refundable', [311, 312]],
  [
    'invalid_request',
    [
      0, 100, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 117, 119, 121, 122, 123,
      124, 125, 126, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148,
      149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 166, 167, 168, 169,
      175, 176, 178, 179, 182, 183, 184, 186, 187, 188, 189, 190, 191, 192, 193, 195, 196, 197, 198,
      199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 214, 215, 304, 315, 316, 317,
      320, 321,
    ],
  ],
]);

export function apiErrorMeaningOf(code: string | number): ApiErrorMeaning {
  return API_ERROR_CODES.get(normalizeCode(code)) ?? 'invalid_request';
}
