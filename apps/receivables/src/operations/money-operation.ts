import type { Knex } from 'knex';
import { assert } from '@pgw/domain';
import type { Tx } from '@pgw/platform-db';
import {
  ZERO_COUNTERS,
  isZeroMovement,
  movementBetween,
  movementImbalance,
  type BookCounters,
} from '@pgw/receivables-domain/books';
import { addToBooks, lockBooks, saveBooks } from '../data/books.repository';
import { saleAtCommit } from '../data/sales-at-commit';
import type { Work } from './context';

export type MovementType =
  | 'charge.sale'
  | 'refund.succeeded'
  | 'chargeback.opened'
  | 'chargeback.won'
  | 'receivable.released'
  | 'payout.reserved'
  | 'payout.paid'
  | 'payout.failed'
  | 'anticipation.executed';

interface SellerState {
  before: BookCounters;
  after: BookCounters;
  feeDeltaCents: number;
  grossDeltaCents: number;
  paidOutCents: number;
  /** `after` is what the books row holds already (addToBooks wrote it): nothing to save. */
  written?: boolean;
}

export interface CounterChange {
  pendingCents?: number;
  receivablesAvailableCents?: number;
  reservedCents?: number;
  debtCents?: number;
  feeDeltaCents?: number;
  grossDeltaCents?: number;
  paidOutCents?: number;
}

/**
 * One business operation on the money of some sellers of one tenant and environment: it locks their
 * books, takes the changes to their counters, and on finish writes the counters and announces one
 * balance movement per seller whose money moved. A movement that does not balance is a bug: it throws,
 * and the transaction with it. An operation that decides nothing from a seller's counters (a sale) need not
 * lock them first: `add` keeps its changes, and finish adds them to the books in one statement.
 */
export class MoneyOperation {
  private readonly sellers = new Map<string, SellerState>();
  /** Changes `add`ed to sellers not locked, from zero (`after` is what to add to their books). */
  private readonly additions = new Map<string, SellerState>();

  constructor(
    private readonly work: Work,
    readonly tenantId: string,
    readonly livemode: boolean,
    readonly type: MovementType,
    private readonly refs: {
      chargeId?: string | null;
      settlementId?: string | null;
      anticipationId?: string | null;
    },
  ) {}

  private get trx(): Tx {
    return this.work.trx;
  }

  async lock(sellerIds: readonly string[]): Promise<void> {
    const missing = sellerIds.filter((id) => !this.sellers.has(id));
    // Locked after an add, the seller's counters would be read without the addition: lock first.
    for (const id of missing)
      assert(!this.additions.has(id), 'books.locked-before-add', { seller_id: id });
    const counters = await lockBooks(this.trx, this.tenantId, this.livemode, missing);
    for (const [sellerId, c] of counters) this.sellers.set(sellerId, emptyState(c));
  }

  private state(sellerId: string): SellerState {
    const state = this.sellers.get(sellerId);
    assert(state !== undefined, 'books.locked-before-change', { seller_id: sellerId });
    return state;
  }

  counters(sellerId: string): BookCounters {
    return { ...this.state(sellerId).after };
  }

  change(sellerId: string, change: CounterChange): void {
    const s = this.state(sellerId);
    applyChange(s, change);
    assertNeverNegative(sellerId, s.after);
  }

  /** A change to a seller's counters that nothing here decides from: added to its books at finish, unlocked until then. */
  add(sellerId: string, change: CounterChange): void {
    if (this.sellers.has(sellerId)) return this.change(sellerId, change);
    const s = this.additions.get(sellerId) ?? emptyState(ZERO_COUNTERS);
    applyChange(s, change);
    this.additions.set(sellerId, s);
  }

  /**
   * Writes the additions and `writes` (one statement), after which those sellers are as if locked and changed.
   */
  private async writeAdditions(writes: Knex.Sql[]): Promise<void> {
    const added = new Map([...this.additions].map(([id, s]) => [id, s.after]));
    const books = await addToBooks(
      this.trx,
      this.tenantId,
      this.livemode,
      added,
      this.work.now,
      writes,
    );
    for (const [sellerId, s] of this.additions) {
      const after = books.get(sellerId);
      assert(after !== undefined, 'books.added', { seller_id: sellerId });
      assertNeverNegative(sellerId, after);
      this.sellers.set(sellerId, { ...s, before: subtract(after, s.after), after, written: true });
    }
    this.additions.clear();
  }

  /**
   * Additions that only grow what is pending decide nothing from the books: nothing they add can make a counter
   * negative, and the movement they make is the addition itself, whatever the books hold (pending is not netted
   * against debt). They go with `writes` at the transaction's commit (saleAtCommit).
   */
  private leaveAdditionsToCommit(writes: Knex.Sql[]): void {
    saleAtCommit(
      this.trx,
      writes,
      [...this.additions].map(([sellerId, s]) => ({
        tenantId: this.tenantId,
        livemode: this.livemode,
        sellerId,
        counters: s.after,
      })),
      this.work.now,
    );
    for (const [sellerId, s] of this.additions)
      this.sellers.set(sellerId, { ...s, before: ZERO_COUNTERS, written: true });
    this.additions.clear();
  }

  /**
   * `writes`: the operation's other writes (that read nothing from the books), sent in one statement with the
   * additions: one round trip for a sale.
   */
  async finish(writes: Knex.Sql[] = []): Promise<void> {
    const additions = [...this.additions.values()];
    if (this.sellers.size === 0 && additions.length > 0 && additions.every(onlyPendingGrows))
      this.leaveAdditionsToCommit(writes);
    else await this.writeAdditions(writes);
    for (const [sellerId, s] of [...this.sellers].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const movement = movementBetween(s.before, s.after, {
        feeDeltaCents: s.feeDeltaCents,
        grossDeltaCents: s.grossDeltaCents,
        paidOutCents: s.paidOutCents,
      });
      const imbalance = movementImbalance(movement);
      assert(imbalance === 0, 'books.movement-balances', {
        type: this.type,
        seller_id: sellerId,
        imbalance_cents: imbalance,
        movement: JSON.stringify(movement),
      });
      // Counters can change while the buckets do not (a payout of zero that settles debt with receivables).
      if (s.written !== true && JSON.stringify(s.before) !== JSON.stringify(s.after))
        await saveBooks(this.trx, this.tenantId, this.livemode, sellerId, s.after, this.work.now);
      if (!isZeroMovement(movement))
        this.work.emit('receivables.balance-moved.v1', this.tenantId, this.livemode, sellerId, {
          seller_id: sellerId,
          type: this.type,
          charge_id: this.refs.chargeId ?? null,
          settlement_id: this.refs.settlementId ?? null,
          anticipation_id: this.refs.anticipationId ?? null,
          pending_delta_cents: movement.pendingDeltaCents,
          available_delta_cents: movement.availableDeltaCents,
          reserved_delta_cents: movement.reservedDeltaCents,
          debt_delta_cents: movement.debtDeltaCents,
          fee_delta_cents: movement.feeDeltaCents,
          gross_delta_cents: movement.grossDeltaCents,
          paid_out_cents: movement.paidOutCents,
        });
      s.before = { ...s.after };
      s.written = false;
      s.feeDeltaCents = 0;
      s.grossDeltaCents = 0;
      s.paidOutCents = 0;
    }
  }
}

const onlyPendingGrows = ({ after: c }: SellerState): boolean =>
  c.pendingCents >= 0 &&
  c.receivablesAvailableCents === 0 &&
  c.reservedCents === 0 &&
  c.debtCents === 0;

const emptyState = (c: BookCounters): SellerState => ({
  before: c,
  after: { ...c },
  feeDeltaCents: 0,
  grossDeltaCents: 0,
  paidOutCents: 0,
});

function applyChange(s: SellerState, change: CounterChange): void {
  s.after.pendingCents += change.pendingCents ?? 0;
  s.after.receivablesAvailableCents += change.receivablesAvailableCents ?? 0;
  s.after.reservedCents += change.reservedCents ?? 0;
  s.after.debtCents += change.debtCents ?? 0;
  s.feeDeltaCents += change.feeDeltaCents ?? 0;
  s.grossDeltaCents += change.grossDeltaCents ?? 0;
  s.paidOutCents += change.paidOutCents ?? 0;
}

function assertNeverNegative(sellerId: string, c: BookCounters): void {
  if (c.pendingCents < 0 || c.receivablesAvailableCents < 0 || c.reservedCents < 0)
    assert(false, 'books.never-negative', { seller_id: sellerId, books: JSON.stringify(c) });
}

const subtract = (a: BookCounters, b: BookCounters): BookCounters => ({
  pendingCents: a.pendingCents - b.pendingCents,
  receivablesAvailableCents: a.receivablesAvailableCents - b.receivablesAvailableCents,
  reservedCents: a.reservedCents - b.reservedCents,
  debtCents: a.debtCents - b.debtCents,
});
