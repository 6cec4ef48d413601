// What a paid charge costs receivables in statements (issue 18): the counts bench budgets the total per charge;
// this shows which statements they are, so that a change that splits them again fails here, by name.
import { createPgliteKnex, mayBeNamed } from '@pgw/platform-db';
import { statementsDuring } from '@pgw/testing';
import { Money } from './money.scenarios';

jest.setTimeout(60_000);
const knex = createPgliteKnex(null);
afterAll(() => knex.destroy());

/** Receivables' own tables (the ledger's, the inbox's and the outbox's are not among them). */
const OWN_TABLE = /"(charges|receivables|seller_books)"|\b(sellers|pricing_plans)\b/;

/** The statements on receivables' own tables that `fn` sends, each on one line. */
const ownStatementsDuring = async (fn: () => Promise<unknown>): Promise<string[]> =>
  (await statementsDuring(knex, fn))
    .filter((sql) => OWN_TABLE.test(sql))
    .map((sql) => sql.replace(/\s+/g, ' ').trim());

describe("a paid charge's statements in receivables", () => {
  it("records the charge and reads its pricing in one statement; receivables, state and books go in the commit's", async () => {
    const money = await Money.start(knex);
    try {
      await money.publish(
        money.seller('seller_s', { mdr_bps: { credit_card: 100 }, settlement_delay_days: 2 }),
      );
      const charge = money.charge('seller_s', { installments: 3 });
      const statements = await ownStatementsDuring(() => money.publish(money.paid(charge)));
      expect(statements).toHaveLength(2);
      expect(statements[0]).toMatch(
        /^with written as \(insert into "charges" .* cross join lateral \(select row_to_json\(s\) as seller/,
      );
      // The commit's one statement: the inbox's id, the outbox's events, and the sale's writes.
      expect(statements[1]).toMatch(
        /^with write_0 as \(insert into "inbox" .* as \(insert into "outbox" .* as \(insert into "seller_books" .* as \(insert into "receivables" .*\) update "charges" set /,
      );
      // Both are texts PostgreSQL prepares once (no whole-row result: prepared-statements.ts).
      expect(statements.filter((sql) => !mayBeNamed(sql))).toEqual([]);
      // And they did what the four statements did before them.
      const receivables = await money.receivablesOf(charge.charge_id);
      expect(receivables.map((r) => r.installment)).toEqual([1, 2, 3]);
      const books = await money.receivablesDb.read((q) =>
        q('seller_books').where({ seller_id: 'seller_s' }).first(),
      );
      expect(books?.pending_cents).toBe(
        receivables.reduce((sum, r) => sum + r.net_amount_cents, 0),
      );
      expect(books?.pending_cents).toBeGreaterThan(0);
    } finally {
      await money.stop();
    }
  });

  it("records a batch's paid charges in one statement, each priced by its own seller's terms", async () => {
    const money = await Money.start(knex);
    try {
      await money.publish(
        money.seller('seller_a', { mdr_bps: { credit_card: 100 }, settlement_delay_days: 2 }),
        money.seller('seller_b', { mdr_bps: { credit_card: 300 }, settlement_delay_days: 2 }),
      );
      const charges = [
        money.charge('seller_a'),
        money.charge('seller_b'),
        money.charge('seller_a', { amount_cents: 20_000 }),
      ];
      const statements = await ownStatementsDuring(() =>
        money.publishAsOneBatch(...charges.map((c) => money.paid(c))),
      );
      const inserts = statements.filter((sql) => /insert into "charges"/.test(sql));
      expect(inserts).toHaveLength(1);
      expect(inserts[0]).toMatch(/cross join lateral \(select row_to_json\(s\) as seller/);
      expect(statements.filter((sql) => !mayBeNamed(sql))).toEqual([]);
      const fees = await Promise.all(
        charges.map(async (c) =>
          (await money.receivablesOf(c.charge_id)).reduce((sum, r) => sum + r.fee_amount_cents, 0),
        ),
      );
      expect(fees).toEqual([100, 300, 200]);
    } finally {
      await money.stop();
    }
  });

  it('sends a sale before a later event of the same batch locks its charge: a refund in that batch takes from it', async () => {
    const money = await Money.start(knex);
    try {
      await money.publish(
        money.seller('seller_r', { mdr_bps: { credit_card: 100 }, settlement_delay_days: 2 }),
      );
      const charge = money.charge('seller_r', { installments: 3 });
      const statements = await ownStatementsDuring(() =>
        money.publishAsOneBatch(money.paid(charge), money.refunded(charge, 3_000)),
      );
      const sale = statements.findIndex((sql) => /insert into "receivables"/.test(sql));
      const lock = statements.findIndex((sql) =>
        /^select .* from "charges" .* for update$/.test(sql),
      );
      expect(sale).toBeGreaterThanOrEqual(0);
      expect(lock).toBeGreaterThan(sale);
      const receivables = await money.receivablesOf(charge.charge_id);
      expect(receivables.reduce((sum, r) => sum + r.gross_amount_cents, 0)).toBe(
        charge.amount_cents - 3_000,
      );
      const books = await money.receivablesDb.read((q) =>
        q('seller_books').where({ seller_id: 'seller_r' }).first(),
      );
      expect(books?.pending_cents).toBe(
        receivables.reduce((sum, r) => sum + r.net_amount_cents, 0),
      );
    } finally {
      await money.stop();
    }
  });
});
