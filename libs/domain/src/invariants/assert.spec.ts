import {
  assert,
  InvariantError,
  isInvariantError,
  observeBrokenInvariants,
  unreachable,
  type InvariantContext,
} from './assert';

describe('assert, for invariants', () => {
  it('does nothing while the invariant holds', () => {
    // Proves a holding invariant neither throws nor reports.
    const seen: InvariantError[] = [];
    const remove = observeBrokenInvariants((broken) => seen.push(broken));
    try {
      assert(1 + 1 === 2, 'arithmetic.holds');
    } finally {
      remove();
    }
    expect(seen).toEqual([]);
  });

  it('reports a broken invariant to the installed observer, then throws it with its name and context', () => {
    // Proves the platform sees each broken invariant (to log and count it) and that the work still stops.
    const seen: InvariantError[] = [];
    const remove = observeBrokenInvariants((broken) => seen.push(broken));
    let thrown: unknown;
    try {
      assert(false, 'charge.refunds-within-amount', {
        charge_id: 'ch_1',
        refunded_cents: 1200,
        amount_cents: 1000,
      });
    } catch (error) {
      thrown = error;
    } finally {
      remove();
    }
    expect(isInvariantError(thrown)).toBe(true);
    expect(seen).toEqual([thrown]);
    const error = thrown as InvariantError;
    expect(error.invariant).toBe('charge.refunds-within-amount');
    expect(error.context).toEqual({ charge_id: 'ch_1', refunded_cents: 1200, amount_cents: 1000 });
    expect(error.message).toBe(
      'invariant broken: charge.refunds-within-amount (charge_id=ch_1, refunded_cents=1200, amount_cents=1000)',
    );
  });

  it('throws even when the observer itself fails, and without one installed', () => {
    // Proves reporting can never swallow the failure.
    const remove = observeBrokenInvariants(() => {
      throw new Error('the log is down');
    });
    try {
      expect(() => assert(false, 'books.balance')).toThrow(InvariantError);
    } finally {
      remove();
    }
    expect(() => assert(null, 'row.present')).toThrow('invariant broken: row.present');
  });

  it('scrubs long digit runs (a PAN, a CNPJ) from the context, and keeps ids, dates and amounts', () => {
    // Proves card data handed to an assertion by mistake reaches neither the log line nor the message.
    const context: InvariantContext = {
      pan: '4111111111111111',
      spaced: 'card 4111 1111 1111 1111 declined',
      cnpj: '11222333000181',
      id: 'ch_0a1b2c3d4e5f6g7h',
      at: '2026-11-25T10:00:00.000Z',
      amount_cents: 123456789,
    };
    let thrown: unknown;
    try {
      assert(false, 'leak.check', context);
    } catch (error) {
      thrown = error;
    }
    const error = thrown as InvariantError;
    expect(error.context).toEqual({
      ...context,
      pan: '[digits]',
      spaced: 'card [digits] declined',
      cnpj: '[digits]',
    });
    expect(error.message).not.toMatch(/4111/);
  });

  it('removes only its own observer, restoring the one before it', () => {
    const outer: string[] = [];
    const inner: string[] = [];
    const removeOuter = observeBrokenInvariants((b) => outer.push(b.invariant));
    const removeInner = observeBrokenInvariants((b) => inner.push(b.invariant));
    expect(() => assert(false, 'first')).toThrow();
    removeInner();
    expect(() => assert(false, 'second')).toThrow();
    removeOuter();
    expect(() => assert(false, 'third')).toThrow();
    expect([outer, inner]).toEqual([['second'], ['first']]);
  });

  it('unreachable fails with the value that reached it', () => {
    const status = 'lost' as never;
    expect(() => unreachable(status, 'charge.status-known')).toThrow(
      'invariant broken: charge.status-known (value=lost)',
    );
  });
});
