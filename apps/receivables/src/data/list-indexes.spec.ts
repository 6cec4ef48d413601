import { createPgliteKnex, orderedQueryPlans, sharedDb } from '@pgw/platform-db';
import { receivablesMigrations } from '../migrations';
import { listReceivables } from './receivables.repository';
import { listSettlements } from './settlements.repository';

// A seller-scoped key lists only its seller's rows: each page must be read through an index that begins
// with (tenant_id, livemode, seller_id) and gives the ORDER BY, not by walking the tenant's rows or sorting.
const knex = createPgliteKnex(null);
const db = sharedDb(knex, 'receivables');
const seller = { tenantId: 'ten_1', livemode: true, sellerId: 'sel_1' };
const SERVED = { leading: [['tenant_id', 'livemode', 'seller_id']], sorts: false };

beforeAll(async () => {
  await db.migrate(receivablesMigrations);
}, 60_000);

afterAll(async () => {
  await knex.destroy();
});

const served = async (work: Parameters<typeof orderedQueryPlans>[1]) =>
  (await orderedQueryPlans(db, work)).map((plan) => ({
    leading: plan.indexes.map((index) => index.columns.slice(0, 3)),
    sorts: plan.sorts,
  }));

it("a seller-scoped key's receivables page, filtered or not, is read through an index on (tenant_id, livemode, seller_id) in the list's order", async () => {
  // Proves the index serves the query: the plan scans it and sorts nothing.
  expect(await served((trx) => listReceivables(trx, seller, {}, 3, 50))).toEqual([SERVED]);
  expect(await served((trx) => listReceivables(trx, seller, { status: 'pending' }, 1, 50))).toEqual(
    [SERVED],
  );
});

it("a seller-scoped key's settlements page, filtered or not, is read through an index on (tenant_id, livemode, seller_id) in the list's order", async () => {
  expect(await served((trx) => listSettlements(trx, seller, {}, 3, 50))).toEqual([SERVED]);
  expect(await served((trx) => listSettlements(trx, seller, { status: 'paid' }, 1, 50))).toEqual([
    SERVED,
  ]);
});
