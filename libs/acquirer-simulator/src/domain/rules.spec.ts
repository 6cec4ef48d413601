import { pixExpiresAt, refundRefusal } from './rules';

describe("the simulated providers' rules", () => {
  it('expires an active Pix charge from its expiry instant on, and never a paid or expired one', () => {
    // Proves the boundary: at expires_at the charge is expired, a millisecond before it is still payable.
    const expiresAt = new Date('2026-03-01T12:00:00Z');
    const active = { status: 'active', expires_at: expiresAt.toISOString() };
    expect(pixExpiresAt(active, new Date(expiresAt.getTime() - 1))).toBe(false);
    expect(pixExpiresAt(active, expiresAt)).toBe(true);
    const later = new Date('2026-03-02T00:00:00Z');
    expect(pixExpiresAt({ status: 'paid', expires_at: expiresAt }, later)).toBe(false);
    expect(pixExpiresAt({ status: 'expired', expires_at: expiresAt }, later)).toBe(false);
  });

  it('refunds only a captured transaction, up to what was captured, counting earlier refunds', () => {
    // Proves both refusals and the exact limit: the captured amount itself may be refunded, a cent more not.
    const captured = {
      status: 'captured',
      captured_amount_cents: '1000',
      refunded_amount_cents: 400,
    };
    expect(refundRefusal(captured, 600)).toBeNull();
    expect(refundRefusal(captured, 601)).toBe('refund_amount_exceeds_captured');
    expect(refundRefusal({ ...captured, status: 'authorized' }, 1)).toBe('not_refundable');
    expect(refundRefusal({ ...captured, status: 'canceled' }, 1)).toBe('not_refundable');
  });
});
