import { boletoMod10, boletoMod11 } from './check-digits';
import { dueDateFactor } from './factor';

// Bank boleto (cobrança) barcode and digitable line; layout in brazil-payments.md §4.10.
// Barcode, 44 digits: bank(3) currency '9'(1) general DV(1) factor(4) amount in cents(10) campo livre(25).
// Digitable line, 47 digits, the same data reordered into five fields so a person can type it:
//   1: bank, currency, livre[0..4], DV10   2: livre[5..14], DV10   3: livre[15..24], DV10
//   4: general DV                          5: factor and amount

const CURRENCY_BRL = '9';
/** [start, end) of digitable-line fields 1–3, each ending in its mod-10 DV. */
const CHECKED_FIELDS: ReadonlyArray<readonly [number, number]> = [
  [0, 10],
  [10, 21],
  [21, 32],
];
/** The amount field has 10 digits: R$ 99,999,999.99 is the most one slip can carry. */
export const BOLETO_AMOUNT_CENTS_MAX = 9_999_999_999;

export interface BarcodeInput {
  /** FEBRABAN bank code, 3 digits: '341' Itaú, '237' Bradesco, '001' Banco do Brasil … */
  bankCode: string;
  amountCents: number;
  dueDate: string;
  /** 25 digits whose layout each bank defines (agency, account, nosso número …). */
  campoLivre: string;
}

/** The 44-digit barcode. Throws RangeError on input that does not fit the layout: the caller owns it. */
export function buildBarcode(input: BarcodeInput): string {
  if (!/^\d{3}$/.test(input.bankCode)) throw new RangeError('bankCode must be 3 digits');
  if (!/^\d{25}$/.test(input.campoLivre)) throw new RangeError('campoLivre must be 25 digits');
  if (
    !Number.isSafeInteger(input.amountCents) ||
    input.amountCents < 0 ||
    input.amountCents > BOLETO_AMOUNT_CENTS_MAX
  ) {
    throw new RangeError(`amountCents must be an integer in 0..${BOLETO_AMOUNT_CENTS_MAX}`);
  }
  const factor = String(dueDateFactor(input.dueDate));
  const withoutDv =
    input.bankCode +
    CURRENCY_BRL +
    factor +
    String(input.amountCents).padStart(10, '0') +
    input.campoLivre;
  return withoutDv.slice(0, 4) + String(boletoMod11(withoutDv)) + withoutDv.slice(4);
}

/** True for 44 digits whose general check digit (position 5) is right. */
export function isValidBarcode(barcode: string): boolean {
  if (!/^\d{44}$/.test(barcode)) return false;
  return Number(barcode[4]) === boletoMod11(barcode.slice(0, 4) + barcode.slice(5));
}

export interface BarcodeParts {
  bankCode: string;
  currencyCode: string;
  generalDv: number;
  dueDateFactor: number;
  amountCents: number;
  campoLivre: string;
}

/** The fields of a valid barcode, or null. The factor is returned raw: dateFromFactor needs a "today". */
export function readBarcode(barcode: string): BarcodeParts | null {
  if (!isValidBarcode(barcode)) return null;
  return {
    bankCode: barcode.slice(0, 3),
    currencyCode: barcode.slice(3, 4),
    generalDv: Number(barcode[4]),
    dueDateFactor: Number(barcode.slice(5, 9)),
    amountCents: Number(barcode.slice(9, 19)),
    campoLivre: barcode.slice(19),
  };
}

/** The 47-digit digitable line of a valid barcode (unformatted). */
export function digitableLine(barcode: string): string {
  if (!isValidBarcode(barcode)) throw new RangeError('not a valid 44-digit boleto barcode');
  const field1 = barcode.slice(0, 4) + barcode.slice(19, 24);
  const field2 = barcode.slice(24, 34);
  const field3 = barcode.slice(34, 44);
  return (
    withMod10(field1) + withMod10(field2) + withMod10(field3) + barcode[4] + barcode.slice(5, 19)
  );
}

/** 'AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE', the way slips print it. */
export function formatDigitableLine(line: string): string {
  if (!/^\d{47}$/.test(line)) throw new RangeError('digitable line must be 47 digits');
  const s = (from: number, to: number): string => line.slice(from, to);
  return `${s(0, 5)}.${s(5, 10)} ${s(10, 15)}.${s(15, 21)} ${s(21, 26)}.${s(26, 32)} ${s(32, 33)} ${s(33, 47)}`;
}

/** True for 47 digits whose three field DVs and general DV are all right. */
export function isValidDigitableLine(line: string): boolean {
  return barcodeFromDigitableLine(line) !== null;
}

/** The barcode behind a 47-digit digitable line (digits only), or null if any check digit is wrong. */
export function barcodeFromDigitableLine(line: string): string | null {
  if (!/^\d{47}$/.test(line)) return null;
  for (const [from, to] of CHECKED_FIELDS) {
    if (Number(line[to - 1]) !== boletoMod10(line.slice(from, to - 1))) return null;
  }
  // Undo the reordering: bank+currency, general DV, factor+amount, then the campo livre split over fields 1–3.
  const barcode =
    line.slice(0, 4) +
    line[32] +
    line.slice(33, 47) +
    line.slice(4, 9) +
    line.slice(10, 20) +
    line.slice(21, 31);
  return isValidBarcode(barcode) ? barcode : null;
}

/** Like barcodeFromDigitableLine, for typed or pasted input: dots, spaces and hyphens are ignored. */
export function parseDigitableLine(raw: string): string | null {
  return barcodeFromDigitableLine(raw.replace(/[.\s-]/g, ''));
}

function withMod10(digits: string): string {
  return digits + String(boletoMod10(digits));
}
