// The two check-digit rules of a bank boleto (FEBRABAN cobrança layout).

/** Mod 10 of the digitable-line fields: weights 2,1,2,1… from the right, digits of each product summed. */
export function boletoMod10(digits: string): number {
  assertDigits(digits);
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    const product = Number(digits[i]) * weight;
    sum += product > 9 ? product - 9 : product; // 1 + (product − 10): the sum of its two digits
    weight = weight === 2 ? 1 : 2;
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * Mod 11 general check digit of the 44-digit barcode, over the 43 other digits: weights 2..9 cycling from
 * the right, r = 11 − (sum mod 11); 0, 10 and 11 become 1, because position 5 must never read 0.
 */
export function boletoMod11(digits: string): number {
  assertDigits(digits);
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    sum += Number(digits[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const r = 11 - (sum % 11);
  return r === 0 || r === 10 || r === 11 ? 1 : r;
}

function assertDigits(digits: string): void {
  if (!/^\d+$/.test(digits)) throw new RangeError('check digits are computed over digits only');
}
