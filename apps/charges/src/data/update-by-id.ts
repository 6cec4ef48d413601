import { assert } from '@pgw/domain';
import type { Tx } from '@pgw/platform-db';

/**
 * Applies `patch` to the row `id` of the table of `what` (charges, refunds, chargebacks) and answers the
 * row as it now is. The caller holds the row (locked or just written): a row gone is a broken invariant.
 */
export async function updateById<Row>(
  trx: Tx,
  what: 'charge' | 'refund' | 'chargeback',
  id: string,
  patch: Partial<Row>,
): Promise<Row> {
  const rows = (await trx(`${what}s`).where({ id }).update(patch).returning('*')) as Row[];
  const row = rows[0];
  assert(row !== undefined, `${what}.present-during-update`, { [`${what}_id`]: id });
  return row;
}
