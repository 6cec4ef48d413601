import documented from './fixtures/return-codes.json';
import {
  API_ERROR_CODES,
  apiErrorMeaningOf,
  CIELO_STATUS,
  normalizeCode,
  refusedReasonOf,
  SALE_RETURN_CODES,
  VOID_RETURN_CODES,
  voidMeaningOf,
} from './cielo-codes';

const unmapped = (
  codes: ReadonlyArray<string | number>,
  table: ReadonlyMap<string, unknown>,
): string[] => codes.map(String).filter((code) => !table.has(normalizeCode(code)));

describe('Cielo codes: every code of the manual has a meaning of ours', () => {
  it('maps every transactional status of the manual, and nothing it does not list', () => {
    // Proves a status Cielo documents never falls through to "unreadable", and the table holds no invented status.
    expect(
      documented.transactionStatus.codes.filter((code) => CIELO_STATUS[code] === undefined),
    ).toEqual([]);
    expect(
      Object.keys(CIELO_STATUS)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([...documented.transactionStatus.codes].sort((a, b) => a - b));
  });

  it.each([
    ['ABECS', documented.saleReturnCodes.abecs.codes],
    ['other return codes', documented.saleReturnCodes.other.codes],
    ['sandbox', documented.saleReturnCodes.sandbox.codes],
  ])('maps every sale return code of the %s table', (_table, codes) => {
    // Proves each documented code is an explicit entry, not left to the fallback for codes nobody listed.
    expect(unmapped(codes, SALE_RETURN_CODES)).toEqual([]);
  });

  it('maps every cancellation return code', () => {
    // Proves the void/refund reading covers the manual's whole table.
    expect(unmapped(documented.cancellationReturnCodes.codes, VOID_RETURN_CODES)).toEqual([]);
  });

  it('maps every API error code', () => {
    // Proves a 400 of any documented code becomes a rejection code of ours, or unavailable for the merchant's own setup.
    expect(unmapped(documented.apiErrorCodes.codes, API_ERROR_CODES)).toEqual([]);
  });

  it('reads a declined sale by the reason the issuer gave', () => {
    // Proves the three refusals the port names, and the failure that is not the card's, come out of their codes.
    expect(refusedReasonOf('51')).toBe('insufficient_funds');
    expect(refusedReasonOf('05')).toBe('card_declined');
    expect(refusedReasonOf(5)).toBe('card_declined');
    expect(refusedReasonOf('54')).toBe('expired_card');
    expect(refusedReasonOf('BV')).toBe('expired_card');
    expect(refusedReasonOf('96')).toBe('processing_error');
    expect(refusedReasonOf('BP 901')).toBe('processing_error');
  });

  it('never reads approval from a return code, and reads an unlisted one as a plain decline', () => {
    // Proves the status decides approval: "00" under a Declined status is still a decline.
    expect(refusedReasonOf('00')).toBe('card_declined');
    expect(refusedReasonOf('ZZ')).toBe('card_declined');
    expect(refusedReasonOf(undefined)).toBe('card_declined');
  });

  it('reads an unlisted void code as an unknown outcome, never as done or not done', () => {
    // Proves a refund answered with a code nobody documented stays pending rather than being settled either way.
    expect(voidMeaningOf('0')).toBe('succeeded');
    expect(voidMeaningOf('9')).toBe('succeeded');
    expect(voidMeaningOf('55')).toBe('merchant_balance');
    expect(voidMeaningOf('12345')).toBe('unknown');
    expect(voidMeaningOf(undefined)).toBe('unknown');
  });

  it('reads an API error by what the caller can do about it', () => {
    // Proves credentials and merchant setup are "unavailable" (nothing happened) and card faults are the card's.
    expect(apiErrorMeaningOf(132)).toBe('unavailable');
    expect(apiErrorMeaningOf('302')).toBe('reference_reused');
    expect(apiErrorMeaningOf(130)).toBe('card_not_found');
    expect(apiErrorMeaningOf(308)).toBe('not_capturable');
    expect(apiErrorMeaningOf(126)).toBe('invalid_request');
    expect(apiErrorMeaningOf(9999)).toBe('invalid_request');
  });

  it('compares codes without leading zeros or spaces', () => {
    // Proves "05", "5" and 5 are one code, and "BP 171" is BP171.
    expect(normalizeCode('05')).toBe('5');
    expect(normalizeCode(5)).toBe('5');
    expect(normalizeCode('00')).toBe('0');
    expect(normalizeCode('bp 171')).toBe('BP171');
  });
});
