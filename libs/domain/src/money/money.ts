// Integer-cent arithmetic. Money is never a float: every division below is exact integer division with
// an explicit rounding rule, done in BigInt so that products such as net × bps × days cannot lose precision.

const BPS_WHOLE = 10_000n;
const DAYS_PER_MONTH = 30n;

/**
 * round(numerator / denominator), halves rounded up, for non-negative integers.
 * Throws RangeError on negative or non-integer input or a zero denominator: those are caller bugs.
 */
export function roundHalfUpDiv(numerator: bigint | number, denominator: bigint | number): number {
  const n = toBigInt(numerator, 'numerator');
  const d = toBigInt(denominator, 'denominator');
  if (n < 0n) throw new RangeError('roundHalfUpDiv: numerator must be >= 0');
  if (d <= 0n) throw new RangeError('roundHalfUpDiv: denominator must be > 0');
  const quotient = n / d;
  const remainder = n % d;
  // 2r >= d is "the fractional part is at least one half", decided without leaving the integers.
  const rounded = 2n * remainder >= d ? quotient + 1n : quotient;
  return toSafeNumber(rounded);
}

/**
 * Splits totalCents into `parts` integers that add up to totalCents exactly. The cents that do not divide
 * evenly all go to the first part (10000 in 3 → [3334, 3333, 3333]): the contract puts the remainder of
 * an installment plan on installment 1.
 */
export function allocateEvenly(totalCents: number, parts: number): number[] {
  assertNonNegativeInteger(totalCents, 'totalCents');
  if (!Number.isSafeInteger(parts) || parts < 1)
    throw new RangeError(`parts must be a positive integer, got ${parts}`);
  const base = Math.floor(totalCents / parts);
  const remainder = totalCents - base * parts;
  const result = new Array<number>(parts).fill(base);
  result[0] = base + remainder;
  return result;
}

/** MDR fee: grossCents × bps / 10000, halves rounded up. With bps in 0..10000 the fee never exceeds gross. */
export function mdrFeeCents(grossCents: number, bps: number): number {
  assertNonNegativeInteger(grossCents, 'grossCents');
  assertBps(bps, 'bps');
  return roundHalfUpDiv(BigInt(grossCents) * BigInt(bps), BPS_WHOLE);
}

export interface AnticipationFeeInput {
  /** The receivable's net amount: the gross of the anticipation item. */
  netCents: number;
  feeBpsPerMonth: number;
  daysAnticipated: number;
}

/**
 * Contract §4: fee = round_half_up(net × fee_bps_per_month × days_anticipated / (10000 × 30)), a simple
 * (not compounded) monthly rate pro-rated per day. The formula is applied as written: the fee can exceed
 * the net only when bps × days > 300000 (over 100 % for the period), which the pricing limits must prevent.
 */
export function anticipationFee(input: AnticipationFeeInput): number {
  assertNonNegativeInteger(input.netCents, 'netCents');
  assertNonNegativeInteger(input.feeBpsPerMonth, 'feeBpsPerMonth');
  assertNonNegativeInteger(input.daysAnticipated, 'daysAnticipated');
  const numerator =
    BigInt(input.netCents) * BigInt(input.feeBpsPerMonth) * BigInt(input.daysAnticipated);
  return roundHalfUpDiv(numerator, BPS_WHOLE * DAYS_PER_MONTH);
}

function toBigInt(value: bigint | number, name: string): bigint {
  if (typeof value === 'bigint') return value;
  if (!Number.isSafeInteger(value))
    throw new RangeError(`${name} must be a safe integer, got ${value}`);
  return BigInt(value);
}

function toSafeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError('result exceeds Number.MAX_SAFE_INTEGER');
  return Number(value);
}

function assertNonNegativeInteger(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
}

function assertBps(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > 10_000)
    throw new RangeError(`${name} must be an integer in 0..10000, got ${value}`);
}
