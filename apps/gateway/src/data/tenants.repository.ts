import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import { pageOfRows, toDate, toInt } from './rows';

export interface Tenant {
  id: string;
  name: string;
  treasuryAvailableCashCents: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

function fromRow(row: Record<string, unknown>): Tenant {
  return {
    id: String(row.id),
    name: String(row.name),
    treasuryAvailableCashCents: toInt(row.treasury_available_cash_cents, 'tenants.treasury_available_cash_cents'),
    version: toInt(row.version, 'tenants.version'),
    createdAt: toDate(row.created_at, 'tenants.created_at'),
    updatedAt: toDate(row.updated_at, 'tenants.updated_at'),
  };
}

export async function insertTenant(trx: Tx, tenant: Tenant): Promise<void> {
  await trx('tenants').insert({
    id: tenant.id,
    name: tenant.name,
    treasury_available_cash_cents: tenant.treasuryAvailableCashCents,
    version: tenant.version,
    created_at: tenant.createdAt,
    updated_at: tenant.updatedAt,
  });
}

/** The tenant, locked for the rest of the transaction when `forUpdate` (its version must grow by one). */
export async function findTenant(q: Knex | Tx, id: string, options: { forUpdate?: boolean } = {}): Promise<Tenant | null> {
  const query = q('tenants').where({ id }).first();
  const row: Record<string, unknown> | undefined = await (options.forUpdate === true ? query.forUpdate() : query);
  return row === undefined ? null : fromRow(row);
}

export async function findTenantByName(q: Knex | Tx, name: string): Promise<Tenant | null> {
  const row: Record<string, unknown> | undefined = await q('tenants').where({ name }).orderBy('created_at').first();
  return row === undefined ? null : fromRow(row);
}

/** One page of every tenant, newest first. */
export async function listTenants(q: Knex | Tx, page: number, limit: number): Promise<{ data: Tenant[]; total: number }> {
  const { rows, total } = await pageOfRows(q, 'tenants', {}, page, limit);
  return { data: rows.map(fromRow), total };
}

export async function updateTenant(trx: Tx, tenant: Tenant): Promise<void> {
  await trx('tenants').where({ id: tenant.id }).update({
    name: tenant.name,
    treasury_available_cash_cents: tenant.treasuryAvailableCashCents,
    version: tenant.version,
    updated_at: tenant.updatedAt,
  });
}
