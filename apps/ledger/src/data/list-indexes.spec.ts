import { createPgliteKnex, orderedQueryPlans, sharedDb } from '@pgw/platform-db';
import { ledgerMigrations } from '../migrations';
import { history } from './journal.repository';

// The balance history is a seller's: its page must walk an index that begins with (tenant_id, livemode,
// seller_id) in the history's order, not the tenant's entries.
const knex = createPgliteKnex(null);
const db = sharedDb(knex, 'ledger');

beforeAll(async () => {
  await db.migrate(ledgerMigrations);
}, 60_000);

afterAll(async () => {
  await knex.destroy();
});

it("a seller's balance history page walks an index on (tenant_id, livemode, seller_id, created_at, seq)", async () => {
  // Proves the index serves the page: the plan scans it (the one sort left orders the page's own rows).
  const [plan, ...others] = await orderedQueryPlans(db, (trx) =>
    history(trx, 'ten_1', true, 'sel_1', 3, 20),
  );
  expect(others).toEqual([]);
  expect(plan?.indexes.map((index) => index.columns)).toContainEqual([
    'tenant_id',
    'livemode',
    'seller_id',
    'created_at',
    'seq',
  ]);
});
