// Address and phone normalisation for the buyer object: stored as digits only (api-v1 `buyer`).

/** A CEP as 8 digits ('01310-100', '01310100', '01.310-100' → '01310100'), or null. */
export function normalizeCep(raw: string): string | null {
  const digits = raw.trim().replace(/[.\-\s]/g, '');
  return /^\d{8}$/.test(digits) ? digits : null;
}

/**
 * A phone as 10 to 15 digits, or null. Strips '+', spaces, parentheses, hyphens and dots, the ways people
 * write '+55 (11) 98765-4321'; any other character means the value is not a phone number. The range covers
 * a Brazilian landline without country code (10) up to the E.164 maximum (15).
 */
export function normalizePhone(raw: string): string | null {
  const digits = raw.trim().replace(/[+\s()\-.]/g, '');
  return /^\d{10,15}$/.test(digits) ? digits : null;
}
