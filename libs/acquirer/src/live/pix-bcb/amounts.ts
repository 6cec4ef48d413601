// API Pix amounts are decimal strings of reais with exactly two decimals ("37.00"); ours are integer
// cents. Both directions are exact string arithmetic: no float ever holds money.

/** The schema's `\d{1,10}\.\d{2}`: ten digits of reais. */
export const PIX_AMOUNT_CENTS_MAX = 999_999_999_999;

export function centsToReais(amountCents: number): string {
  if (!Number.isSafeInteger(amountCents) || amountCents < 0 || amountCents > PIX_AMOUNT_CENTS_MAX) {
    throw new RangeError('amountCents must be an integer between 0 and 999999999999');
  }
  const digits = String(amountCents).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** Cents of an API Pix amount, or null when the text is not one. */
export function reaisToCents(reais: string): number | null {
  const match = /^(\d{1,10})\.(\d{2})$/.exec(reais);
  if (match === null) return null;
  return Number(match[1]) * 100 + Number(match[2]);
}
