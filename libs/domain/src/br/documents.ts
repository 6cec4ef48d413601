// CPF (people, 11 digits) and CNPJ (companies, 14 digits), each ending in two mod-11 check digits.
// Punctuation is accepted (123.456.789-09, 12.345.678/0001-95) and dropped; documents are stored as digits.
// Known limit of the official scheme, kept as is: a remainder of 10 (CPF) or of 0/1 (CNPJ) folds to the
// check digit 0, so a few single-digit typos still validate. We implement the Receita Federal rule, not
// a stricter one, because a stricter one would reject real documents.

export type DocumentType = 'cpf' | 'cnpj';

export interface NormalizedDocument {
  digits: string;
  type: DocumentType;
}

const CNPJ_WEIGHTS_FIRST = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_SECOND = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

export function isValidCpf(raw: string): boolean {
  const digits = stripPunctuation(raw);
  if (digits === null || digits.length !== 11 || isAllSameDigit(digits)) return false;
  return digits.slice(9) === cpfCheckDigits(digits.slice(0, 9));
}

export function isValidCnpj(raw: string): boolean {
  const digits = stripPunctuation(raw);
  if (digits === null || digits.length !== 14 || isAllSameDigit(digits)) return false;
  return digits.slice(12) === cnpjCheckDigits(digits.slice(0, 12));
}

/** Digits and type of a valid CPF or CNPJ, or null for anything else (wrong length, bad check digits, letters). */
export function normalizeDocument(raw: string): NormalizedDocument | null {
  const digits = stripPunctuation(raw);
  if (digits === null) return null;
  if (digits.length === 11 && isValidCpf(digits)) return { digits, type: 'cpf' };
  if (digits.length === 14 && isValidCnpj(digits)) return { digits, type: 'cnpj' };
  return null;
}

/** The two check digits of a CPF whose first 9 digits are given. */
export function cpfCheckDigits(base9: string): string {
  const first = cpfDigit(base9, 10);
  const second = cpfDigit(base9 + String(first), 11);
  return `${first}${second}`;
}

/** The two check digits of a CNPJ whose first 12 digits are given. */
export function cnpjCheckDigits(base12: string): string {
  const first = cnpjDigit(base12, CNPJ_WEIGHTS_FIRST);
  const second = cnpjDigit(base12 + String(first), CNPJ_WEIGHTS_SECOND);
  return `${first}${second}`;
}

/** A valid CPF derived only from `seed`, for tests and demo data. */
export function generateCpf(seed: number): string {
  const base = randomDigits(seed, 9);
  return base + cpfCheckDigits(base);
}

/** A valid CNPJ (head office, branch 0001) derived only from `seed`, for tests and demo data. */
export function generateCnpj(seed: number): string {
  const base = randomDigits(seed, 8) + '0001';
  return base + cnpjCheckDigits(base);
}

function cpfDigit(digits: string, firstWeight: number): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) sum += Number(digits[i]) * (firstWeight - i);
  const remainder = (sum * 10) % 11;
  return remainder === 10 ? 0 : remainder;
}

function cnpjDigit(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) sum += Number(digits[i]) * (weights[i] ?? 0);
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

/** Drops the usual separators; null if anything other than digits remains. */
function stripPunctuation(raw: string): string | null {
  const digits = raw.replace(/[.\-/\s]/g, '');
  return /^\d+$/.test(digits) ? digits : null;
}

// 000.000.000-00, 111.111.111-11 … pass the arithmetic but are not issued; Receita rejects them.
function isAllSameDigit(digits: string): boolean {
  return /^(\d)\1*$/.test(digits);
}

// mulberry32: a tiny seeded generator, so that the same seed always gives the same document.
function randomDigits(seed: number, count: number): string {
  let state = seed >>> 0;
  let out = '';
  while (out.length < count) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const value = ((t ^ (t >>> 14)) >>> 0) % 10;
    out += String(value);
  }
  // A run of one digit would give an unissuable document; nudging the last digit keeps it deterministic.
  if (isAllSameDigit(out)) out = out.slice(0, -1) + String((Number(out[out.length - 1]) + 1) % 10);
  return out;
}
