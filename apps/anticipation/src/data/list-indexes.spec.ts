import { createPgliteKnex, orderedQueryPlans, sharedDb } from '@pgw/platform-db';
import { anticipationMigrations } from '../migrations';
import { listAnticipations } from './anticipations.repository';

// Anticipations are listed by a seller-scoped key only: the page must be read through an index that begins
// with (tenant_id, livemode, seller_id) and gives the ORDER BY, not by walking the tenant's rows or sorting.
const knex = createPgliteKnex(null);
const db = sharedDb(knex, 'anticipation');

beforeAll(async () => {
  await db.migrate(anticipationMigrations);
}, 60_000);

afterAll(async () => {
  await knex.destroy();
});

it("a seller's anticipations page is read through an index on (tenant_id, livemode, seller_id) in the list's order", async () => {
  // Proves the index serves the query: the plan scans it and sorts nothing.
  const plans = await orderedQueryPlans(db, (trx) =>
    listAnticipations(trx, { tenantId: 'ten_1', livemode: true, sellerId: 'sel_1' }, 2, 20),
  );
  expect(
    plans.map((plan) => ({
      leading: plan.indexes.map((index) => index.columns.slice(0, 3)),
      sorts: plan.sorts,
    })),
  ).toEqual([{ leading: [['tenant_id', 'livemode', 'seller_id']], sorts: false }]);
});
