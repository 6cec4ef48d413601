// The lists the route specs read (receivables, settlements, jobs): receivables and the ledger together
// (money.scenarios.ts), two sellers of one tenant, five charges of 1x and one of 3x, one settlement run.
// After every test, and at the end, the shared invariant checker runs (invariants.ts).
import { createPgliteKnex } from '@pgw/platform-db';
import { Money } from './money.scenarios';
import { checkInvariants, type ChargeExpectation } from './invariants';

/** Call at a spec's top level: the fixture is built before its tests and stopped after them. */
export function listsFixture() {
  const knex = createPgliteKnex(null);
  const charges = new Map<string, ChargeExpectation>();
  let started: Money | undefined;

  beforeAll(async () => {
    const money = await Money.start(knex);
    started = money;
    await money.publish(money.seller('seller_own'), money.seller('seller_other'));
    // 5 charges of 1x and one of 3x: 8 receivables; 2 Pix available at once.
    for (let i = 0; i < 5; i++) {
      const c = money.charge(i < 2 ? 'seller_other' : 'seller_own', {
        payment_method: i < 2 ? 'pix' : 'credit_card',
        amount_cents: 1_000 + i,
      });
      await money.publish(money.paid(c));
      charges.set(c.charge_id, { grossCents: c.amount_cents });
    }
    const three = money.charge('seller_own', { installments: 3 });
    await money.publish(money.paid(three));
    charges.set(three.charge_id, { grossCents: 10_000 });
    await money.job('settlement-run', '2026-03-02');
  });

  afterAll(async () => {
    try {
      if (started !== undefined) await checkInvariants(started, charges);
    } finally {
      await started?.stop();
      await knex.destroy();
    }
  });

  afterEach(() => checkInvariants(lists.money, charges));

  const lists = {
    get money(): Money {
      if (started === undefined) throw new Error('listsFixture: used before its beforeAll');
      return started;
    },
    /** Each charge published, in order, with what the invariants expect of it. */
    charges,
  };
  return lists;
}
