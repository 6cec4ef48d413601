import { assert } from '@pgw/domain';
import type { Knex } from 'knex';
import type { EventMap } from '@pgw/contracts';
import { writeAtCommit, type Tx, type WriteSql } from '@pgw/platform-db';
import type { Candidate } from '@pgw/anticipation-domain/quote';

type Q = Knex | Tx;
type Row = Record<string, unknown>;

export interface SellerScope {
  tenantId: string;
  livemode: boolean;
  sellerId: string;
}

type ReceivableChanged = EventMap['receivables.receivable-changed.v1']['receivable'];

const COPY_COLUMNS =
  'receivable_id, tenant_id, livemode, seller_id, charge_id, status, gross_amount_cents, net_amount_cents, debited_gross_cents, due_date, anticipation_id, version, updated_at';

/** A receivable's copy as its event gives it, with the event's scope. */
interface Copy {
  tenantId: string;
  livemode: boolean;
  r: ReceivableChanged;
}

/** The copies a transaction keeps, by receivable: one row each, its newest version. */
const copiesAtCommit = new WeakMap<Tx, Map<string, Copy>>();

/**
 * The copy of one receivable after a receivable-changed event: the highest version wins, so a repeat or
 * an older event that arrives late changes nothing. `anticipated_by` is never touched here. Written at the
 * transaction's commit, every copy of the transaction in one upsert with its other deferred writes (the
 * inbox's ids); nothing reads the copy back in the consumer's transaction.
 */
export function upsertReceivable(
  trx: Tx,
  tenantId: string,
  livemode: boolean,
  r: ReceivableChanged,
): void {
  let copies = copiesAtCommit.get(trx);
  if (copies === undefined) {
    const batch = new Map<string, Copy>();
    copiesAtCommit.set(trx, batch);
    writeAtCommit(trx, () => upsertCopiesSql([...batch.values()]));
    copies = batch;
  }
  const before = copies.get(r.receivable_id);
  if (before === undefined || before.r.version < r.version)
    copies.set(r.receivable_id, { tenantId, livemode, r });
}

function upsertCopiesSql(copies: Copy[]): WriteSql {
  return {
    sql: `insert into receivables (${COPY_COLUMNS})
     values ${copies.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now())').join(', ')}
     on conflict (receivable_id) do update set status = excluded.status, gross_amount_cents = excluded.gross_amount_cents,
       net_amount_cents = excluded.net_amount_cents, debited_gross_cents = excluded.debited_gross_cents, due_date = excluded.due_date,
       anticipation_id = excluded.anticipation_id, version = excluded.version, updated_at = now()
     where receivables.version < excluded.version`,
    bindings: copies.flatMap(({ tenantId, livemode, r }) => [
      r.receivable_id,
      tenantId,
      livemode,
      r.seller_id,
      r.charge_id,
      r.status,
      r.gross_amount_cents,
      r.net_amount_cents,
      r.debited_gross_cents,
      r.due_date,
      r.anticipation_id,
      r.version,
    ]),
  };
}

/** A receivable an execution takes: what pricing needs, and what its event says of the original. */
export interface LockedCandidate extends Candidate {
  chargeId: string;
  version: number;
}

const LOCKED_COLUMNS = ['receivable_id', 'charge_id', 'net_amount_cents', 'due_date', 'version'];

function toLocked(row: Row): LockedCandidate {
  return {
    receivableId: row.receivable_id as string,
    chargeId: row.charge_id as string,
    netCents: row.net_amount_cents as number,
    dueDate: row.due_date as string,
    version: row.version as number,
  };
}

const ELIGIBLE = `tenant_id = ? and livemode = ? and seller_id = ? and status = 'pending' and anticipation_id is null and anticipated_by is null
  and due_date > ? and gross_amount_cents > debited_gross_cents`;

/**
 * Contract §4's eligible receivables of the seller: pending, not anticipated (by receivables' word or by
 * ours), due after today; and with some of their gross still the seller's (a receivable a chargeback took
 * whole is nobody's to anticipate). Earliest due first; at most `limit` of them.
 *
 * Read as one text value: the embedded database hands rows to JavaScript value by value through
 * WebAssembly, so ten thousand rows cost ~200 ms that way and ~20 ms as one string (issue 7: a seller with
 * many receivables must not wait). Ids (recv_ and alphanumerics), integers and dates hold no space.
 */
export async function eligibleReceivables(
  q: Q,
  scope: SellerScope,
  today: string,
  limit: number,
): Promise<Candidate[]> {
  const result = await q.raw(
    // The subquery walks the receivables_eligible index in order; the aggregate is not asked to sort
    // again (a second sort of every row), and the order is checked below rather than assumed.
    `select string_agg(receivable_id || ' ' || net_amount_cents || ' ' || due_date, ' ') as packed
     from (select receivable_id, net_amount_cents, due_date from receivables where ${ELIGIBLE}
           order by due_date, receivable_id limit ?) eligible`,
    [scope.tenantId, scope.livemode, scope.sellerId, today, limit],
  );
  const packed = ((result.rows as Row[])[0]?.packed ?? null) as string | null;
  if (packed === null) return [];
  const parts = packed.split(' ');
  assert(parts.length % 3 === 0, 'eligible-receivables.values-without-spaces', {
    parts: parts.length,
  });
  const out: Candidate[] = [];
  let sorted = true;
  for (let i = 0; i < parts.length; i += 3) {
    // The packed text of the query above: id, net cents and due date, by threes.
    const c: Candidate = {
      receivableId: parts[i] as string,
      netCents: Number(parts[i + 1]),
      dueDate: parts[i + 2] as string,
    };
    assert(Number.isSafeInteger(c.netCents), 'eligible-receivables.net-cents-integer', {
      receivable_id: c.receivableId,
    });
    const last = out[out.length - 1];
    if (
      last !== undefined &&
      (last.dueDate > c.dueDate ||
        (last.dueDate === c.dueDate && last.receivableId > c.receivableId))
    )
      sorted = false;
    out.push(c);
  }
  return sorted ? out : out.sort(byDueDate);
}

// Earliest due first, then by id: the order of the receivables_eligible index (text order, like SQL's "C" order of these ASCII ids).
const byDueDate = (a: Candidate, b: Candidate) =>
  a.dueDate < b.dueDate
    ? -1
    : a.dueDate > b.dueDate
      ? 1
      : a.receivableId < b.receivableId
        ? -1
        : a.receivableId > b.receivableId
          ? 1
          : 0;

/** The same receivables, locked for an execution (which takes at most a thousand, row by row). */
export async function lockEligibleReceivables(
  trx: Tx,
  scope: SellerScope,
  today: string,
  limit: number,
): Promise<LockedCandidate[]> {
  const rows = (await trx('receivables')
    .whereRaw(ELIGIBLE, [scope.tenantId, scope.livemode, scope.sellerId, today])
    .orderBy([{ column: 'due_date' }, { column: 'receivable_id' }])
    .limit(limit)
    .forUpdate()
    .select(LOCKED_COLUMNS)) as Row[];
  return rows.map(toLocked);
}

export interface LocalReceivable extends LockedCandidate {
  status: string;
  grossCents: number;
  debitedGrossCents: number;
  anticipationId: string | null;
  anticipatedBy: string | null;
}

/** The seller's receivables among `ids` (others, and other tenants' or environments', are absent). */
export async function receivablesByIds(
  q: Q,
  scope: SellerScope,
  ids: readonly string[],
  options: { lock?: boolean } = {},
): Promise<Map<string, LocalReceivable>> {
  if (ids.length === 0) return new Map();
  const query = q('receivables')
    .where({ tenant_id: scope.tenantId, livemode: scope.livemode, seller_id: scope.sellerId })
    .whereIn('receivable_id', [...ids])
    .orderBy('receivable_id');
  const rows = (await (options.lock === true ? query.forUpdate() : query)) as Row[];
  return new Map(
    rows.map((row) => {
      const r: LocalReceivable = {
        ...toLocked(row),
        status: row.status as string,
        grossCents: row.gross_amount_cents as number,
        debitedGrossCents: row.debited_gross_cents as number,
        anticipationId: row.anticipation_id as string | null,
        anticipatedBy: row.anticipated_by as string | null,
      };
      return [r.receivableId, r];
    }),
  );
}

/** The same rule as eligibleReceivables, for one receivable already loaded. */
export function isEligible(r: LocalReceivable, today: string): boolean {
  return (
    r.status === 'pending' &&
    r.anticipationId === null &&
    r.anticipatedBy === null &&
    r.dueDate > today &&
    r.grossCents > r.debitedGrossCents
  );
}

/** Takes the receivables out of every later anticipation, in the execution's transaction. */
export async function markAnticipated(
  trx: Tx,
  ids: readonly string[],
  anticipationId: string,
): Promise<void> {
  const updated = await trx('receivables')
    .whereIn('receivable_id', [...ids])
    .whereNull('anticipated_by')
    .update({ anticipated_by: anticipationId, updated_at: trx.fn.now() });
  assert(updated === ids.length, 'anticipation.marks-every-receivable', {
    anticipation_id: anticipationId,
    marked: updated,
    receivables: ids.length,
  });
}
