// A directory write inside one tenant: the admin routes and the operations that create in a tenant share it.
import { isId } from '@pgw/domain';
import type { Db, Tx } from '@pgw/platform-db';
import { notFound } from '@pgw/platform-http';
import { findTenant } from '../data/tenants.repository';

/**
 * Runs `work` in one transaction on a tenant that exists: a malformed or unknown tenant id is a 404
 * `tenant`. `forUpdate` locks the tenant's row for the rest of the transaction.
 */
export async function inTenant<T>(
  db: Db,
  tenantId: string,
  options: { forUpdate?: boolean },
  work: (trx: Tx) => Promise<T>,
): Promise<T> {
  if (!isId('ten_', tenantId)) throw notFound('tenant');
  return db.tx(async (trx) => {
    if ((await findTenant(trx, tenantId, options)) === null) throw notFound('tenant');
    return work(trx);
  });
}
