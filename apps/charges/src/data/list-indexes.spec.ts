import { createPgliteKnex, orderedQueryPlans, sharedDb } from '@pgw/platform-db';
import { chargesMigrations } from '../migrations';
import { listChargeEvents } from './charge-event.repository';
import { listChargebacks } from './chargeback.repository';
import { listRefundsOfCharge } from './refund.repository';

// A seller-scoped key lists only its seller's rows: the page must be read through an index that begins
// with (tenant_id, livemode, seller_id) and gives the ORDER BY, not by walking the tenant's rows or sorting.
const knex = createPgliteKnex(null);
const db = sharedDb(knex, 'charges');

beforeAll(async () => {
  await db.migrate(chargesMigrations);
}, 60_000);

afterAll(async () => {
  await knex.destroy();
});

it("a seller-scoped key's chargebacks page is read through an index on (tenant_id, livemode, seller_id) in the list's order", async () => {
  // Proves the index serves the query: the plan scans it and sorts nothing.
  const plans = await orderedQueryPlans(db, (trx) =>
    listChargebacks(trx, { tenantId: 'ten_1', livemode: false, sellerId: 'sel_1' }, 2, 20),
  );
  expect(
    plans.map((plan) => ({
      leading: plan.indexes.map((index) => index.columns.slice(0, 3)),
      sorts: plan.sorts,
    })),
  ).toEqual([{ leading: [['tenant_id', 'livemode', 'seller_id']], sorts: false }]);
});

it("a charge's refunds and events pages are read through an index that begins with the charge and gives the order", async () => {
  // Proves GET /charges/{id}/refunds and /events neither walk the table nor sort, however many charges there are.
  const scope = { tenantId: 'ten_1', livemode: false };
  for (const list of [listRefundsOfCharge, listChargeEvents]) {
    const plans = await orderedQueryPlans(db, (trx) => list(trx, scope, 'ch_1', 2, 20));
    expect(
      plans.map((plan) => ({
        leading: plan.indexes.map((index) => index.columns[0]),
        sorts: plan.sorts,
      })),
    ).toEqual([{ leading: ['charge_id'], sorts: false }]);
  }
});
