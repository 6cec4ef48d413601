// Events that arrive late or out of order: the directory and the charges topics are not ordered with
// each other, and a consumer may see a charge's refund or chargeback resolution before the event it
// follows. After every scenario the shared invariant checker runs (invariants.ts).
import { createPgliteKnex } from '@pgw/platform-db';
import { Money } from './money.scenarios';
import { checkInvariants, type ChargeExpectation } from './invariants';

// The embedded database boots in seconds on a busy machine: one per file, and room for it.
jest.setTimeout(60_000);
const knex = createPgliteKnex(null);
afterAll(() => knex.destroy());

describe('late and out-of-order events', () => {
  let money: Money;
  let charges: Map<string, ChargeExpectation>;

  beforeEach(async () => {
    money = await Money.start(knex);
    charges = new Map();
  });

  afterEach(async () => {
    try {
      await checkInvariants(money, charges);
    } finally {
      await money.stop();
    }
  });

  it('keeps a charge paid before its seller is known waiting, and schedules it (and its refund) when the seller arrives', async () => {
    const charge = money.charge('seller_late', { installments: 2 });
    await money.publish(money.paid(charge), money.refunded(charge, 1_000));
    expect(await money.receivablesOf(charge.charge_id)).toEqual([]);
    await money.publish(
      money.seller('seller_late', { mdr_bps: { credit_card: 100 }, settlement_delay_days: 2 }),
    );
    charges.set(charge.charge_id, { grossCents: 9_000 });
    const rs = await money.receivablesOf(charge.charge_id);
    expect(rs.map((r) => [r.gross_amount_cents, r.fee_amount_cents, r.due_date])).toEqual([
      [5_000, 50, '2026-03-04'],
      [4_000, 40, '2026-04-03'],
    ]);
  });

  it("waits for a seller's override plan it has not heard of, then prices with it", async () => {
    await money.publish(
      money.seller('seller_p', { pricing_plan_id: 'plan_vip' }),
      money.plan('plan_default', { is_default: true, mdr_bps: { pix: 80 } }),
    );
    const pix = money.charge('seller_p', { payment_method: 'pix' });
    await money.publish(money.paid(pix));
    expect(await money.receivablesOf(pix.charge_id)).toEqual([]);
    await money.publish(money.plan('plan_vip', { mdr_bps: { pix: 10 } }));
    charges.set(pix.charge_id, { grossCents: 10_000 });
    expect(await money.receivablesOf(pix.charge_id)).toMatchObject([
      { fee_amount_cents: 10, status: 'available' },
    ]);
  });

  it("prices with the tenant's default plan (its D+N and MDR) when the seller has no override, and keeps the highest version", async () => {
    await money.publish(
      money.seller('seller_d', { version: 2, settlement_delay_days: 10 }),
      money.seller('seller_d', { version: 1, settlement_delay_days: 60 }),
    );
    await money.publish(
      money.plan('plan_d', {
        is_default: true,
        settlement_delay_days: 5,
        mdr_bps: { credit_card: 200 },
      }),
    );
    const credit = money.charge('seller_d');
    const debit = money.charge('seller_d', { payment_method: 'debit_card' });
    await money.publish(money.paid(credit), money.paid(debit));
    charges.set(credit.charge_id, { grossCents: 10_000 });
    charges.set(debit.charge_id, { grossCents: 10_000 });
    expect(await money.receivablesOf(credit.charge_id)).toMatchObject([
      { fee_amount_cents: 200, due_date: '2026-03-07' },
    ]);
    // The plan has no debit rate: the seller's own config decides it.
    expect(await money.receivablesOf(debit.charge_id)).toMatchObject([
      { fee_amount_cents: 199, due_date: '2026-03-03' },
    ]);
  });

  it('builds the schedule from a refund that arrives before charge-paid, and ignores the late charge-paid', async () => {
    await money.publish(money.seller('seller_own'));
    const charge = money.charge('seller_own', { installments: 3 });
    const paid = money.paid(charge);
    await money.publish(money.refunded(charge, 3_333), paid);
    charges.set(charge.charge_id, { grossCents: 6_667 });
    expect((await money.receivablesOf(charge.charge_id)).map((r) => r.status)).toEqual([
      'pending',
      'pending',
      'canceled',
    ]);
  });

  it('leaves nothing debited when a chargeback is won before its opening arrives', async () => {
    await money.publish(money.seller('seller_own'));
    const charge = money.charge('seller_own');
    await money.publish(
      money.paid(charge),
      money.chargeback('won', charge, 'cb_x', 10_000),
      money.chargeback('opened', charge, 'cb_x', 10_000),
    );
    charges.set(charge.charge_id, { grossCents: 10_000 });
    expect(await money.balance('seller_own')).toMatchObject({ pending_cents: 9_701 });
  });

  it('books a movement delivered to the ledger late, in its place in the history, with the same balances', async () => {
    await money.publish(money.seller('seller_own'));
    const first = money.charge('seller_own', { payment_method: 'pix' });
    await money.publish(money.paid(first));
    // Redeliver the ledger's oldest movement by hand, long after: the inbox (and its source id) drop it.
    const [row] = (await money.receivablesDb.read((q) =>
      q('outbox').where({ event_type: 'receivables.balance-moved.v1' }).orderBy('id').limit(1),
    )) as Array<Record<string, any>>;
    await money.bus.publish([
      {
        topic: row!.topic,
        key: row!.key,
        value: Buffer.from(row!.payload),
        headers: { 'event-id': row!.event_id, 'event-type': row!.event_type },
      },
    ]);
    charges.set(first.charge_id, { grossCents: 10_000 });
    const history = await money.get(
      '/api/v1/balance/history',
      money.principal({ sellerId: 'seller_own' }),
    );
    expect(history.body.total).toBe(1);
  });

  it('keeps test and live money apart: a live charge is not in the test balance or lists', async () => {
    await money.publish(money.seller('seller_own'));
    const live = money.charge('seller_own', { payment_method: 'pix' });
    await money.publish(money.paid(live, true));
    expect(await money.balance('seller_own')).toMatchObject({ available_cents: 0 });
    expect((await money.get('/api/v1/receivables')).body.total).toBe(0);
    const liveList = await money.get('/api/v1/receivables', money.principal({ livemode: true }));
    expect(liveList.body.data).toMatchObject([{ charge_id: live.charge_id, status: 'available' }]);
    const liveBalance = await money.get(
      '/api/v1/balance',
      money.principal({ livemode: true, sellerId: 'seller_own' }),
    );
    expect(liveBalance.body).toMatchObject({ available_cents: 9_901 });
  });
});
