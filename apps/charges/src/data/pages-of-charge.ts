import type { Knex } from 'knex';
import { pagedQuery, type Paged, type Tx } from '@pgw/platform-db';

/**
 * One page of a charge's rows (its refunds, its events), as pagedQuery reads it. The caller has found the
 * charge in the key's scope; tenant and environment are checked here again all the same.
 */
export type PageOfCharge<Row> = (
  q: Knex | Tx,
  scope: { tenantId: string; livemode: boolean },
  chargeId: string,
  page: number,
  limit: number,
) => Promise<Paged<Row>>;

/** The pages of a charge's rows in `table`, ordered by `newestFirst`, reading `columns` (see pagedQuery). */
export function pagesOfCharge<Row>(
  table: string,
  newestFirst: readonly [string, ...string[]],
  columns?: readonly string[],
): PageOfCharge<Row> {
  return (q, scope, chargeId, page, limit) => {
    const ofCharge = q(table).where({
      charge_id: chargeId,
      tenant_id: scope.tenantId,
      livemode: scope.livemode,
    });
    return pagedQuery<Row>(ofCharge, newestFirst, page, limit, columns);
  };
}
