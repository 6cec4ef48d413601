import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import {
  pageOf,
  recordFromRow,
  tableReads,
  type DirectoryRecord,
  type Page,
  type Paging,
} from './queries';

export interface Tenant extends DirectoryRecord {
  name: string;
  treasuryAvailableCashCents: number;
}

function fromRow(row: Record<string, unknown>): Tenant {
  return {
    name: String(row.name),
    treasuryAvailableCashCents: row.treasury_available_cash_cents as number,
    ...recordFromRow(row),
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
export const findTenant = tableReads('tenants', fromRow).find;

export async function findTenantByName(q: Knex | Tx, name: string): Promise<Tenant | null> {
  const row: Record<string, unknown> | undefined = await q('tenants')
    .where({ name })
    .orderBy('created_at')
    .first();
  return row === undefined ? null : fromRow(row);
}

/** One page of every tenant, newest first. */
export async function listTenants(q: Knex | Tx, paging: Paging): Promise<Page<Tenant>> {
  return pageOf(q, 'tenants', {}, paging, fromRow);
}

export async function updateTenant(trx: Tx, tenant: Tenant): Promise<void> {
  await trx('tenants').where({ id: tenant.id }).update({
    name: tenant.name,
    treasury_available_cash_cents: tenant.treasuryAvailableCashCents,
    version: tenant.version,
    updated_at: tenant.updatedAt,
  });
}
