// Luhn (mod 10) check used by every card number. It catches every single-digit error and most swaps of
// adjacent digits, which is why a Luhn failure is answered at once with card_number_invalid.

/** True when `digits` (digits only, at least 2) passes the Luhn check. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{2,}$/.test(digits)) return false;
  return luhnSum(digits, false) % 10 === 0;
}

/** The digit that, appended to `partial` (digits only, at least 1), makes a Luhn-valid number. */
export function luhnCheckDigit(partial: string): string {
  if (!/^\d+$/.test(partial)) throw new RangeError('luhnCheckDigit: digits only');
  // The check digit will sit at the rightmost, undoubled place, so every digit here shifts one place left.
  return String((10 - (luhnSum(partial, true) % 10)) % 10);
}

function luhnSum(digits: string, doubleRightmost: boolean): number {
  let sum = 0;
  let double = doubleRightmost;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum;
}
