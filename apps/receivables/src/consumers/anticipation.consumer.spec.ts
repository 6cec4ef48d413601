// The anticipation service's executed event, applied by receivables and booked by the ledger: fed as
// the anticipation service's relay writes it (Avro bytes and headers), to receivables and the ledger
// running together (scenarios/money.scenarios.ts), each scenario ending on the money invariants.
import { createPgliteKnex } from '@pgw/platform-db';
import { checkInvariants } from '../scenarios/invariants';
import { Money } from '../scenarios/money.scenarios';

jest.setTimeout(120_000);
const knex = createPgliteKnex(null);
afterAll(() => knex.destroy());

const platformFees = async (money: Money) =>
  Number(
    (
      (await money.ledgerDb.read((q) =>
        q('accounts')
          .where({ tenant_id: money.tenantId, livemode: false, account: 'platform:fees' })
          .first('balance_cents'),
      )) as { balance_cents?: unknown } | undefined
    )?.balance_cents ?? 0,
  );

describe.each([
  ['each event delivered once', 1],
  ['every event delivered twice', 2],
])('anticipation.anticipation-executed.v1 in receivables and the ledger, %s', (_mode, copies) => {
  let money: Money;

  beforeEach(async () => {
    money = await Money.start(knex, { copies });
    await money.publish(money.seller('seller_own'));
  });

  afterEach(async () => {
    try {
      await checkInvariants(money);
    } finally {
      await money.stop();
    }
  });

  it('makes the originals anticipated, creates available receivables for the net due today, and moves pending to available net of the fee', async () => {
    // Proves receivable-states.md "Anticipation": statuses, the new receivables, the balance and the fee booked, once.
    const charge = money.charge('seller_own', { installments: 3 });
    await money.publish(money.paid(charge));
    const [i1, i2, i3] = await money.receivablesOf(charge.charge_id);
    // 3334 gross → MDR 100 → net 3234; 3333 → 100 → 3233.
    expect([i1.net_amount_cents, i2.net_amount_cents, i3.net_amount_cents]).toEqual([
      3_234, 3_233, 3_233,
    ]);
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 9_700,
      available_cents: 0,
    });
    const feesBefore = await platformFees(money);

    // 3234 × 199 × 30 / 300000 = 64.4 → 64; 3233 × 199 × 60 / 300000 = 128.7 → 129.
    const event = money.anticipated('seller_own', [
      { receivable: i1, feeCents: 64, days: 30 },
      { receivable: i2, feeCents: 129, days: 60 },
    ]);
    const anticipationId = event[2].anticipation_id;
    await money.publish(event);

    const after = await money.receivablesOf(charge.charge_id);
    const originals = after.filter((r) => r.status === 'anticipated');
    const created = after.filter((r) => r.status === 'available');
    expect(originals.map((r) => [r.id, r.anticipation_id, r.net_amount_cents])).toEqual([
      [i1.id, anticipationId, 3_234],
      [i2.id, anticipationId, 3_233],
    ]);
    expect(
      created.map((r) => [
        r.installment,
        r.gross_amount_cents,
        r.fee_amount_cents,
        r.net_amount_cents,
        r.due_date,
        r.original_due_date,
        r.anticipation_id,
        r.settlement_id,
      ]),
    ).toEqual([
      [1, 3_170, 0, 3_170, '2026-03-02', i1.original_due_date, anticipationId, null],
      [2, 3_104, 0, 3_104, '2026-03-02', i2.original_due_date, anticipationId, null],
    ]);
    expect(after.find((r) => r.id === i3.id)).toMatchObject({
      status: 'pending',
      anticipation_id: null,
    });

    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 3_233,
      available_cents: 3_170 + 3_104,
      reserved_cents: 0,
    });
    expect((await platformFees(money)) - feesBefore).toBe(64 + 129);
    const history = await money.get(
      '/api/v1/balance/history',
      money.principal({ sellerId: 'seller_own' }),
    );
    // One journal entry: pending out, available in, and the seller's effect is the fee.
    expect(
      history.body.data
        .filter((t: any) => t.type === 'anticipation.executed')
        .map((t: any) => [t.direction, t.amount_cents]),
    ).toEqual([['debit', 64 + 129]]);

    // The money is the seller's now: the next settlement pays exactly the anticipated net.
    await money.job('settlement-run', '2026-03-02');
    expect((await money.get('/api/v1/settlements')).body.data).toMatchObject([
      { status: 'paid', amount_cents: 6_274, receivable_count: 2 },
    ]);
  });

  it('applies one anticipation once, even under a new event id', async () => {
    // Proves the guard beside the inbox: the same anticipation id changes nothing the second time.
    const charge = money.charge('seller_own');
    await money.publish(money.paid(charge));
    const [r] = await money.receivablesOf(charge.charge_id);
    const first = money.anticipated('seller_own', [{ receivable: r, feeCents: 193, days: 30 }]);
    await money.publish(first);
    const buckets = async () => {
      const { pending_cents, available_cents, reserved_cents, requestable_cents } =
        await money.balance('seller_own');
      return { pending_cents, available_cents, reserved_cents, requestable_cents };
    };
    const balance = await buckets();
    const again = money.anticipated(
      'seller_own',
      [{ receivable: r, feeCents: 193, days: 30 }],
      first[2].anticipation_id,
    );
    await money.publish(again);
    expect(await buckets()).toEqual(balance);
    expect(await money.receivablesOf(charge.charge_id)).toHaveLength(2);
  });

  it('books as debt what a refund took from the original before the anticipation reached receivables', async () => {
    // Proves the movement balances when the copy the anticipation priced was stale: the seller keeps the
    // item's net, minus what the refund took back.
    const charge = money.charge('seller_own');
    await money.publish(money.paid(charge));
    const [r] = await money.receivablesOf(charge.charge_id);
    expect(r.net_amount_cents).toBe(9_701);
    const priced = money.anticipated('seller_own', [{ receivable: r, feeCents: 193, days: 30 }]);
    // 4,000 refunded from the pending receivable first: gross 6000, MDR 179, net 5821.
    await money.publish(money.refunded(charge, 4_000));
    expect((await money.receivablesOf(charge.charge_id))[0]).toMatchObject({
      status: 'pending',
      net_amount_cents: 5_821,
    });
    await money.publish(priced);
    // Paid 9,508 for a claim now worth 5,821: 3,880 owed back, netted against the available at once.
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 0,
      available_cents: 9_508 - 3_880,
      reserved_cents: 0,
    });
    await money.job('settlement-run', '2026-03-02');
    expect((await money.get('/api/v1/settlements')).body.data).toMatchObject([
      { status: 'paid', amount_cents: 5_628 },
    ]);
  });
});
