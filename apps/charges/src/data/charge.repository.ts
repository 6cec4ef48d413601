import type { Knex } from 'knex';
import { pagedQuery, writeAtCommit, type Paged, type Tx } from '@pgw/platform-db';
import type { CaptureMethod, ChargeStatus, PaymentMethod } from '@pgw/charges-domain/charge';
import { pageAfter, type JobPage } from './page-after';
import { updateById } from './update-by-id';

type Q = Knex | Tx;

export interface ChargeRow {
  id: string;
  tenant_id: string;
  livemode: boolean;
  seller_id: string | null;
  status: ChargeStatus;
  amount_cents: number;
  currency: string;
  payment_method: PaymentMethod;
  capture_method: CaptureMethod;
  installments: number | null;
  card_token: string | null;
  card_ref: string | null;
  /** The card's brand as the vault detected it (charge-paid v2 carries it); null for Pix and boleto, and for charges made before it was kept. */
  card_brand: string | null;
  buyer_json: string;
  metadata_json: string | null;
  split_json: string;
  acquirer_code: string | null;
  /**
   * The rail that served the charge (`cielo:acme`, `simulator`): its capture, refunds and look-ups go
   * there even after the tenant's rails change. Null for charges made before it was kept: they follow
   * the tenant's rails.
   */
  acquirer_rail: string | null;
  acquirer_transaction_id: string | null;
  authorization_code: string | null;
  acquirer_return_code: string | null;
  acquirer_return_message: string | null;
  refused_reason: string | null;
  pix_expires_in: number | null;
  pix_qr_code: string | null;
  pix_expires_at: Date | null;
  boleto_due_date: string | null;
  boleto_barcode: string | null;
  boleto_digitable_line: string | null;
  /** false while the provider's answer to the intent is unknown (timeout, or a crash before it was saved). */
  outcome_known: boolean;
  /** true once charge-created is in the outbox. */
  announced: boolean;
  refunded_cents: number;
  chargeback_cents: number;
  status_before_chargeback: ChargeStatus | null;
  authorized_at: Date | null;
  paid_at: Date | null;
  canceled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type ChargePatch = Partial<Omit<ChargeRow, 'id' | 'tenant_id' | 'livemode' | 'created_at'>>;

/** Who is asking: the API key's tenant and environment, and its seller when the key is seller-scoped. */
export interface Scope {
  tenantId: string;
  livemode: boolean;
  sellerId: string | null;
}

function inScope(q: Q, scope: Scope) {
  const query = q('charges').where({ tenant_id: scope.tenantId, livemode: scope.livemode });
  // A seller-scoped key sees its own seller's charges only.
  return scope.sellerId === null ? query : query.andWhere({ seller_id: scope.sellerId });
}

/** The insert of a new charge, as a statement to send with others (IdempotencySession.claimWith). */
export function insertChargeSql(q: Q, row: ChargeRow): Knex.Sql {
  return q('charges').insert(row).toSQL();
}

export async function findCharge(q: Q, scope: Scope, id: string): Promise<ChargeRow | undefined> {
  return inScope(q, scope).andWhere({ id }).first<ChargeRow | undefined>();
}

/** The charge row locked for change; `scope` null for the operator and the jobs, which act on any tenant. */
export async function lockCharge(
  trx: Tx,
  scope: Scope | null,
  id: string,
): Promise<ChargeRow | undefined> {
  const query =
    scope === null ? trx('charges').where({ id }) : inScope(trx, scope).andWhere({ id });
  return query.forUpdate().first<ChargeRow | undefined>();
}

/** The filters of GET /charges: each one given narrows the list; the dates bound created_at, [from, to). */
export interface ChargeFilter {
  status?: ChargeStatus;
  paymentMethod?: PaymentMethod;
  createdFrom?: Date;
  createdTo?: Date;
}

/** One page of the scope's charges that match `filter`, most recent first (ties broken by id). */
export async function listCharges(
  q: Q,
  scope: Scope,
  filter: ChargeFilter,
  page: number,
  limit: number,
): Promise<Paged<ChargeRow>> {
  const query = inScope(q, scope);
  if (filter.status !== undefined) query.andWhere({ status: filter.status });
  if (filter.paymentMethod !== undefined) query.andWhere({ payment_method: filter.paymentMethod });
  if (filter.createdFrom !== undefined) query.andWhere('created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query.andWhere('created_at', '<', filter.createdTo);
  return pagedQuery<ChargeRow>(query, ['created_at', 'id'], page, limit);
}

export async function findChargeById(q: Q, id: string): Promise<ChargeRow | undefined> {
  return q('charges').where({ id }).first<ChargeRow | undefined>();
}

export async function updateCharge(trx: Tx, id: string, patch: ChargePatch): Promise<ChargeRow> {
  return updateById<ChargeRow>(trx, 'charge', id, patch);
}

/** The intent a guarded outcome was decided from has changed since (the recovery settled it first). */
export class ChargeChanged extends Error {
  constructor(readonly chargeId: string) {
    super(`charge ${chargeId} changed since it was read`);
  }
}

/**
 * Applies `patch` to the intent `seen` at the transaction's commit, in its one statement (writeAtCommit),
 * if the row still has the fields a provider outcome is decided from (outcome not known, status, announced,
 * acquirer, status before a chargeback); if it no longer has, the transaction rolls back with ChargeChanged.
 * Returns the row as it will be: `seen` with `patch` (nothing else changes an intent whose outcome is not
 * known). The update locks the row itself, and PostgreSQL checks the condition on its latest version.
 */
export function updateChargeAtCommitIfUnchanged(
  trx: Tx,
  seen: ChargeRow,
  patch: ChargePatch,
): ChargeRow {
  writeAtCommit(
    trx,
    (q) =>
      q('charges')
        .where({
          id: seen.id,
          outcome_known: false,
          status: seen.status,
          announced: seen.announced,
          acquirer_code: seen.acquirer_code,
          status_before_chargeback: seen.status_before_chargeback,
        })
        .update(patch, 'id')
        .toSQL(),
    () => new ChargeChanged(seen.id),
  );
  return { ...seen, ...patch };
}

/** Intents whose outcome is unknown and older than `before`, oldest first, a page at a time (see pageAfter). */
export async function chargesWithUnknownOutcome(
  q: Q,
  before: Date,
  page: JobPage,
): Promise<ChargeRow[]> {
  const unknown = q('charges').where({ outcome_known: false }).andWhere('created_at', '<', before);
  return pageAfter(unknown, 'charges', 'created_at', page);
}

/** Authorized charges (manual capture) authorized at or before `cutoff`, oldest first, a page at a time. */
export async function authorizedBefore(q: Q, cutoff: Date, page: JobPage): Promise<ChargeRow[]> {
  const due = q('charges').where({ status: 'authorized' }).andWhere('authorized_at', '<=', cutoff);
  return pageAfter(due, 'charges', 'authorized_at', page);
}

/** The live Pix charge a PSP's txid names, if any. */
export async function findLivePixByTxid(q: Q, txid: string): Promise<ChargeRow | undefined> {
  return q('charges')
    .where({ payment_method: 'pix', livemode: true, acquirer_transaction_id: txid })
    .first<ChargeRow | undefined>();
}

/**
 * Where pending live Pix charges wait for their payment, and since when: per recorded rail (and, for a
 * charge made before rails were recorded, per tenant), the oldest such charge's creation. The pix-payments
 * poll asks each account for the Pix received since then. Bounded by the number of accounts and tenants.
 */
export async function pendingLivePixAccounts(
  q: Q,
): Promise<Array<{ acquirer_rail: string | null; tenant_id: string; oldest: Date }>> {
  const rows: Array<{ acquirer_rail: string | null; tenant_id: string; oldest: Date | string }> =
    await q('charges')
      .where({ status: 'pending', payment_method: 'pix', outcome_known: true, livemode: true })
      .groupBy('acquirer_rail', 'tenant_id')
      .select('acquirer_rail', 'tenant_id')
      .min({ oldest: 'created_at' });
  return rows.map((r) => ({ ...r, oldest: new Date(r.oldest) }));
}

/**
 * The boleto rails that pending live boletos were registered on (`acquirer_rail`), for the file exchange:
 * a rail the tenant has left still owes them its return files. Bounded by the number of bank accounts.
 */
export async function pendingBoletoRails(q: Q): Promise<string[]> {
  const rows = await q('charges')
    .where({ status: 'pending', payment_method: 'boleto', livemode: true })
    .whereNotNull('acquirer_rail')
    .distinct('acquirer_rail')
    .orderBy('acquirer_rail');
  return rows.map((r: { acquirer_rail: string }) => r.acquirer_rail);
}

/** Pending Pix charges whose QR code expired at or before `cutoff`, soonest expired first, a page at a time. */
export async function pixExpiredBefore(q: Q, cutoff: Date, page: JobPage): Promise<ChargeRow[]> {
  const expired = q('charges')
    .where({ status: 'pending', payment_method: 'pix', outcome_known: true })
    .andWhere('pix_expires_at', '<=', cutoff);
  return pageAfter(expired, 'charges', 'pix_expires_at', page);
}
