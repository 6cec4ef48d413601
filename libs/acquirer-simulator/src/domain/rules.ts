// The simulated providers' rules that no store or clock holds: when a Pix charge expires, when a refund is
// refused. The operations (../operations) apply them to rows they locked, at the simulator's clock.

/** Whether a Pix charge is past its expiry at `now`: an active one whose time has come (a paid one stays paid). */
export function pixExpiresAt(
  charge: { status: string; expires_at: Date | string },
  now: Date,
): boolean {
  return charge.status === 'active' && new Date(charge.expires_at).getTime() <= now.getTime();
}

/**
 * Why a refund of `amountCents` of this transaction is refused, or null: only a captured transaction is
 * refunded, and its refunds never add up past the captured amount.
 */
export function refundRefusal(
  transaction: {
    status: string;
    captured_amount_cents: number | string;
    refunded_amount_cents: number | string;
  },
  amountCents: number,
): 'not_refundable' | 'refund_amount_exceeds_captured' | null {
  if (transaction.status !== 'captured') return 'not_refundable';
  const refunded = Number(transaction.refunded_amount_cents);
  if (refunded + amountCents > Number(transaction.captured_amount_cents))
    return 'refund_amount_exceeds_captured';
  return null;
}
