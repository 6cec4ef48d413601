// The invariants every money scenario ends on, checked from the raw rows of both services and from the
// public balance, never from the counters they are meant to verify.
import type { Db } from '@pgw/platform-db';
import { isAnticipationOutput } from '@pgw/receivables-domain/take';

/** What the checker reads: both services' databases, and the public balance as the seller sees it. */
export interface MoneyView {
  tenantId: string;
  receivablesDb: Db;
  ledgerDb: Db;
  /** Resolves once everything published has been applied by both services. */
  settle(): Promise<void>;
  balance(sellerId: string): Promise<{
    pending_cents: number;
    available_cents: number;
    reserved_cents: number;
    requestable_cents: number;
  }>;
}

type Row = Record<string, unknown>;
const n = (v: unknown) => Number(v ?? 0);
const output = (r: Row) =>
  isAnticipationOutput({
    status: String(r.status),
    anticipationId: typeof r.anticipation_id === 'string' ? r.anticipation_id : null,
  });

/** One anticipation as the ledger booked it, beside the receivables it anticipated and created. */
interface AnticipationView {
  livemode: boolean;
  sellerId: string;
  /** The fee booked to platform:fees: no receivables row keeps it (the new receivables carry the item's net). */
  feeCents: number;
  /** The entries' effect on the seller (the fee, as a debit). */
  sellerEffectCents: number;
  entries: number;
  rows: number;
  /** Net of the originals it made `anticipated`: what the seller was still owed for them. */
  claimCents: number;
  /** Net of the `available` receivables it created. */
  outputNetCents: number;
  sellers: Set<string>;
}

/**
 * Anticipations, from the ledger's anticipation.executed entries and the receivables' rows. The seller is
 * paid each item's net (gross − fee) for what it was still owed on the original (the claim), and any
 * difference (a refund that reached the original before the anticipation did) is debt: so each
 * anticipation adds `output net + fee − claim` to the seller's debt, which the receivables' counters hold.
 */
async function anticipations(
  money: MoneyView,
  receivables: Row[],
  broken: string[],
): Promise<Map<string, AnticipationView>> {
  const entries = (await money.ledgerDb.read((q) =>
    q('journal_entries as e')
      .leftJoin('postings as p', (j) =>
        j.on('p.entry_seq', '=', 'e.seq').andOnVal('p.account', '=', 'platform:fees'),
      )
      .where({ 'e.tenant_id': money.tenantId, 'e.type': 'anticipation.executed' })
      .select(
        'e.livemode',
        'e.seller_id',
        'e.anticipation_id',
        'e.amount_cents',
        'e.direction',
        'p.amount_cents as fee_cents',
      ),
  )) as Row[];
  const views = new Map<string, AnticipationView>();
  const view = (livemode: boolean, id: string, sellerId: string) => {
    const key = `${livemode}:${id}`;
    const found = views.get(key) ?? {
      livemode,
      sellerId,
      feeCents: 0,
      sellerEffectCents: 0,
      entries: 0,
      rows: 0,
      claimCents: 0,
      outputNetCents: 0,
      sellers: new Set<string>(),
    };
    views.set(key, found);
    return found;
  };
  for (const e of entries) {
    const v = view(e.livemode === true, String(e.anticipation_id), String(e.seller_id));
    v.entries++;
    v.feeCents += n(e.fee_cents);
    v.sellerEffectCents += e.direction === 'credit' ? n(e.amount_cents) : -n(e.amount_cents);
    if (String(e.seller_id) !== v.sellerId)
      broken.push(`anticipation ${String(e.anticipation_id)}: ledger entries of two sellers`);
  }
  for (const r of receivables) {
    if (r.anticipation_id === null || r.anticipation_id === undefined) continue;
    const v = view(r.livemode === true, String(r.anticipation_id), String(r.seller_id));
    v.rows++;
    v.sellers.add(String(r.seller_id));
    if (r.status === 'anticipated') v.claimCents += n(r.net_amount_cents);
    else v.outputNetCents += n(r.net_amount_cents);
  }
  for (const [key, v] of views) {
    const where = `anticipation ${key.slice(key.indexOf(':') + 1)} (${v.livemode ? 'live' : 'test'})`;
    if (v.entries === 0) broken.push(`${where}: in receivables, not in the ledger`);
    if (v.rows === 0) broken.push(`${where}: in the ledger, no receivables`);
    if (v.sellerEffectCents !== -v.feeCents)
      broken.push(`${where}: the seller's entry is ${v.sellerEffectCents}, its fee ${v.feeCents}`);
    if ([...v.sellers].some((s) => s !== v.sellerId))
      broken.push(`${where}: receivables of another seller than the ledger's ${v.sellerId}`);
  }
  return views;
}

export interface ChargeExpectation {
  /** amount - refunds - chargebacks (open or lost) */
  grossCents: number;
}

/** Throws, listing every broken invariant, when the two services disagree on any cent. */
export async function checkInvariants(
  money: MoneyView,
  charges: Map<string, ChargeExpectation> = new Map(),
): Promise<void> {
  await money.settle();
  const broken: string[] = [];
  const tenant = money.tenantId;
  const ofTenant = async (db: Db, table: string) =>
    (await db.read((q) => q(table).where({ tenant_id: tenant }))) as Row[];
  const receivables = await ofTenant(money.receivablesDb, 'receivables');
  const settlements = await ofTenant(money.receivablesDb, 'settlements');
  const debits = await ofTenant(money.receivablesDb, 'debits');
  const books = await ofTenant(money.receivablesDb, 'seller_books');
  const accounts = await ofTenant(money.ledgerDb, 'accounts');
  const anticipated = [...(await anticipations(money, receivables, broken)).values()];

  const sellers = new Set<string>([
    ...receivables.map((r) => String(r.seller_id)),
    ...books.map((b) => String(b.seller_id)),
  ]);
  for (const livemode of [false, true]) {
    for (const seller of sellers) {
      const mine = <T extends Row>(rows: T[]) =>
        rows.filter((r) => r.seller_id === seller && r.livemode === livemode);
      const sum = (rows: Row[], column: string) => rows.reduce((s, r) => s + n(r[column]), 0);
      const rs = mine(receivables);
      const pending = sum(
        rs.filter((r) => r.status === 'pending'),
        'net_amount_cents',
      );
      const free = sum(
        rs.filter((r) => r.status === 'available' && r.settlement_id === null),
        'net_amount_cents',
      );
      const inFlight = mine(settlements).filter(
        (s) => s.status === 'pending' || s.status === 'processing',
      );
      const reserved = sum(inFlight, 'amount_cents');
      const inFlightNet = sum(
        rs.filter((r) => r.status === 'available' && r.settlement_id !== null),
        'net_amount_cents',
      );
      const anticipationDebt = anticipated
        .filter((a) => a.sellerId === seller && a.livemode === livemode)
        .reduce((s, a) => s + a.outputNetCents + a.feeCents - a.claimCents, 0);
      const debt =
        sum(mine(debits), 'net_cents') +
        anticipationDebt -
        sum(
          mine(settlements).filter((s) => s.status !== 'failed' && s.status !== 'canceled'),
          'debt_cents',
        );
      const netted = Math.min(debt, free);
      const expected = { pending, available: free - netted, reserved, debt: debt - netted };
      const where = `seller ${seller} (${livemode ? 'live' : 'test'})`;

      if (inFlightNet - sum(inFlight, 'debt_cents') !== reserved)
        broken.push(
          `${where}: settlements in flight hold ${reserved}, their receivables ${inFlightNet} minus debt`,
        );
      const book = mine(books)[0];
      if (book !== undefined) {
        const counters = {
          pending: n(book.pending_cents),
          free: n(book.receivables_available_cents),
          reserved: n(book.reserved_cents),
          debt: n(book.debt_cents),
        };
        const fromRows = { pending, free, reserved, debt };
        if (JSON.stringify(counters) !== JSON.stringify(fromRows))
          broken.push(
            `${where}: receivables counters ${JSON.stringify(counters)} != rows ${JSON.stringify(fromRows)}`,
          );
      }
      const account = (bucket: string) =>
        n(
          accounts.find(
            (a) => a.livemode === livemode && a.account === `seller:${seller}:${bucket}`,
          )?.balance_cents,
        );
      const ledger = {
        pending: account('pending'),
        available: account('available'),
        reserved: account('reserved'),
        debt: -account('debt'),
      };
      if (JSON.stringify(ledger) !== JSON.stringify(expected))
        broken.push(
          `${where}: ledger ${JSON.stringify(ledger)} != receivables ${JSON.stringify(expected)}`,
        );

      if (!livemode) {
        const b = await money.balance(seller);
        const api = {
          pending: b.pending_cents,
          available: b.available_cents,
          reserved: b.reserved_cents,
          requestable: b.requestable_cents,
        };
        const want = {
          pending,
          available: expected.available + reserved,
          reserved,
          requestable: expected.available,
        };
        if (JSON.stringify(api) !== JSON.stringify(want))
          broken.push(`${where}: GET /balance ${JSON.stringify(api)} != ${JSON.stringify(want)}`);
        if (api.requestable !== api.available - api.reserved)
          broken.push(`${where}: requestable != available - reserved`);
        for (const [bucket, value] of Object.entries(api))
          if (value < 0) broken.push(`${where}: ${bucket} is negative (${value})`);
      }
      for (const [bucket, value] of Object.entries(expected))
        if (value < 0) broken.push(`${where}: ledger ${bucket} is negative (${value})`);
    }
  }

  // Double entry: every journal entry balances, and every running balance is the sum of its postings.
  const unbalanced = (await money.ledgerDb.read((q) =>
    q('postings')
      .where({ tenant_id: tenant })
      .groupBy('entry_seq')
      .havingRaw('sum(amount_cents) <> 0')
      .select('entry_seq'),
  )) as Row[];
  if (unbalanced.length > 0)
    broken.push(
      `journal entries that do not balance: ${unbalanced.map((r) => r.entry_seq).join(', ')}`,
    );
  const sums = (await money.ledgerDb.read((q) =>
    q('postings')
      .where({ tenant_id: tenant })
      .groupBy('livemode', 'account')
      .select('livemode', 'account')
      .sum({ total: 'amount_cents' }),
  )) as Row[];
  for (const a of accounts) {
    const total = n(sums.find((s) => s.account === a.account && s.livemode === a.livemode)?.total);
    if (total !== n(a.balance_cents))
      broken.push(
        `account ${a.account}: running balance ${n(a.balance_cents)} != its postings ${total}`,
      );
  }
  for (const livemode of [false, true]) {
    // The platform's fee revenue is the MDR of what is still sold (live receivables' fees minus the fees
    // given back), plus the anticipations' fees.
    const live = receivables.filter((r) => r.livemode === livemode && r.status !== 'canceled');
    const anticipationFees = anticipated
      .filter((a) => a.livemode === livemode)
      .reduce((s, a) => s + a.feeCents, 0);
    const fees =
      live.reduce((s, r) => s + n(r.fee_amount_cents), 0) -
      debits.filter((d) => d.livemode === livemode).reduce((s, d) => s + n(d.fee_cents), 0) +
      anticipationFees;
    const ledgerFees = n(
      accounts.find((a) => a.livemode === livemode && a.account === 'platform:fees')?.balance_cents,
    );
    if (fees !== ledgerFees)
      broken.push(
        `platform fees (${livemode ? 'live' : 'test'}): ledger ${ledgerFees} != receivables ${fees}`,
      );
  }

  // Every cent of every charge: the gross still with the sellers is the amount less refunds and chargebacks.
  for (const [chargeId, want] of charges) {
    // The anticipated original still stands for its part of the charge; what the anticipation created is the seller's money.
    const rs = receivables.filter((r) => r.charge_id === chargeId && !output(r));
    const gross = rs
      .filter((r) => r.status !== 'canceled')
      .reduce((s, r) => s + n(r.gross_amount_cents) - n(r.debited_gross_cents), 0);
    const debited = debits
      .filter((d) => d.charge_id === chargeId)
      .reduce((s, d) => s + n(d.gross_cents), 0);
    const debitedOnRows = rs.reduce((s, r) => s + n(r.debited_gross_cents), 0);
    if (rs.length === 0) broken.push(`charge ${chargeId}: no receivables`);
    if (gross !== want.grossCents)
      broken.push(
        `charge ${chargeId}: receivables hold ${gross} gross, expected ${want.grossCents}`,
      );
    if (debited !== debitedOnRows)
      broken.push(`charge ${chargeId}: debits ${debited} != receivables' debited ${debitedOnRows}`);
  }

  if (broken.length > 0) throw new Error(`money invariants broken:\n  ${broken.join('\n  ')}`);
}
