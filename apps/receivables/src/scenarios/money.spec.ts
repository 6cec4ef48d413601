// Money scenarios: receivables and the ledger fed with real charges and directory events. After every
// scenario the shared invariant checker (invariants.ts) compares, cent by cent, the ledger's balances
// with the receivables' rows, every journal entry's postings, the public balance, and each charge's gross.
// The whole table runs twice: with each event delivered once, and with every event delivered twice.
import { addDays } from '@pgw/domain';
import { createPgliteKnex } from '@pgw/platform-db';
import type { Bank } from '../operations/bank';
import { Money } from './money.scenarios';
import { checkInvariants, type ChargeExpectation } from './invariants';

// The embedded database boots in seconds on a busy machine: one per file, and room for it.
jest.setTimeout(60_000);
const knex = createPgliteKnex(null);
afterAll(() => knex.destroy());

const PAID = '2026-03-02';

describe.each([
  ['each event delivered once', 1],
  ['every event delivered twice', 2],
])('money scenarios, %s', (_mode, copies) => {
  let money: Money;
  let charges: Map<string, ChargeExpectation>;
  const expect$ = (chargeId: string, grossCents: number) => charges.set(chargeId, { grossCents });

  beforeEach(async () => {
    money = await Money.start(knex, { copies });
    charges = new Map();
    await money.publish(
      money.seller('seller_own'),
      money.seller('seller_a'),
      money.seller('seller_b'),
    );
  });

  afterEach(async () => {
    try {
      await checkInvariants(money, charges);
    } finally {
      await money.stop();
    }
  });

  it('schedules a 1x credit charge at D+30 with its MDR, and the ledger shows it pending', async () => {
    const charge = money.charge('seller_own');
    await money.publish(money.paid(charge));
    expect$(charge.charge_id, 10_000);
    const [r] = await money.receivablesOf(charge.charge_id);
    expect(r).toMatchObject({
      status: 'pending',
      installment: 1,
      installments: 1,
      gross_amount_cents: 10_000,
      fee_amount_cents: 299,
      net_amount_cents: 9701,
      due_date: '2026-04-01',
      original_due_date: '2026-04-01',
      payment_method: 'credit_card',
      anticipation_id: null,
      settlement_id: null,
    });
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 9701,
      available_cents: 0,
      reserved_cents: 0,
      requestable_cents: 0,
    });
    const history = await money.get(
      '/api/v1/balance/history',
      money.principal({ sellerId: 'seller_own' }),
    );
    expect(history.body.data).toEqual([
      {
        object: 'balance_transaction',
        id: expect.stringMatching(/^ldge_[A-Za-z0-9]+$/),
        type: 'charge.sale',
        direction: 'credit',
        amount_cents: 9701,
        currency: 'BRL',
        charge_id: charge.charge_id,
        created_at: expect.any(String),
      },
    ]);
  });

  it('puts the remainder cents of 3x and 12x on installment 1, 30 days apart', async () => {
    const three = money.charge('seller_own', { installments: 3 });
    const twelve = money.charge('seller_own', { installments: 12, amount_cents: 100_001 });
    await money.publish(money.paid(three), money.paid(twelve));
    expect$(three.charge_id, 10_000);
    expect$(twelve.charge_id, 100_001);
    expect(
      (await money.receivablesOf(three.charge_id)).map((r) => [r.gross_amount_cents, r.due_date]),
    ).toEqual([
      [3334, '2026-04-01'],
      [3333, '2026-05-01'],
      [3333, '2026-05-31'],
    ]);
    const t = await money.receivablesOf(twelve.charge_id);
    expect(t.map((r) => r.gross_amount_cents)).toEqual([8338, ...Array(11).fill(8333)]);
    expect(t.map((r) => r.due_date)).toEqual(
      Array.from({ length: 12 }, (_, i) => addDays(PAID, 30 + 30 * i)),
    );
  });

  it('dates debit D+1 and boleto D+1 (pending), Pix D+0 (available at once)', async () => {
    const debit = money.charge('seller_own', { payment_method: 'debit_card' });
    const pix = money.charge('seller_own', { payment_method: 'pix', amount_cents: 5_000 });
    const boleto = money.charge('seller_own', { payment_method: 'boleto', amount_cents: 3_000 });
    await money.publish(money.paid(debit), money.paid(pix), money.paid(boleto));
    for (const c of [debit, pix, boleto]) expect$(c.charge_id, c.amount_cents);
    expect(await money.receivablesOf(debit.charge_id)).toMatchObject([
      { status: 'pending', due_date: '2026-03-03', fee_amount_cents: 199 },
    ]);
    expect(await money.receivablesOf(pix.charge_id)).toMatchObject([
      { status: 'available', due_date: PAID, fee_amount_cents: 50, net_amount_cents: 4950 },
    ]);
    expect(await money.receivablesOf(boleto.charge_id)).toMatchObject([
      { status: 'pending', due_date: '2026-03-03', fee_amount_cents: 45 },
    ]);
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 9801 + 2955,
      available_cents: 4950,
      requestable_cents: 4950,
    });
  });

  it('splits to two recipients per installment, the remainder to the charge seller', async () => {
    const charge = money.charge('seller_own', {
      installments: 2,
      split: [
        { recipient_seller_id: 'seller_a', amount_cents: 3_001 },
        { recipient_seller_id: 'seller_b', amount_cents: 2_000 },
      ],
    });
    await money.publish(money.paid(charge));
    expect$(charge.charge_id, 10_000);
    const rs = await money.receivablesOf(charge.charge_id);
    expect(rs.map((r) => [r.seller_id, r.installment, r.gross_amount_cents])).toEqual([
      ['seller_a', 1, 1501],
      ['seller_a', 2, 1500],
      ['seller_b', 1, 1000],
      ['seller_b', 2, 1000],
      ['seller_own', 1, 2500],
      ['seller_own', 2, 2499],
    ]);
    expect((await money.balance('seller_a')).pending_cents).toBe(1501 - 45 + 1500 - 45);
  });

  it('cancels the latest installment first on a partial refund before release, then everything on a full refund', async () => {
    const charge = money.charge('seller_own', { installments: 3 });
    await money.publish(money.paid(charge), money.refunded(charge, 5_000));
    let rs = await money.receivablesOf(charge.charge_id);
    expect(
      rs.map((r) => [r.status, r.gross_amount_cents, r.fee_amount_cents, r.net_amount_cents]),
    ).toEqual([
      ['pending', 3334, 100, 3234],
      ['pending', 1666, 50, 1616],
      ['canceled', 3333, 100, 3233],
    ]);
    expect((await money.balance('seller_own')).pending_cents).toBe(3234 + 1616);
    await money.publish(money.refunded(charge, 5_000));
    expect$(charge.charge_id, 0);
    rs = await money.receivablesOf(charge.charge_id);
    expect(rs.map((r) => r.status)).toEqual(['canceled', 'canceled', 'canceled']);
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 0,
      available_cents: 0,
    });
    const history = await money.get(
      '/api/v1/balance/history',
      money.principal({ sellerId: 'seller_own' }),
    );
    expect(history.body.data.map((t: any) => [t.type, t.direction, t.amount_cents])).toEqual([
      ['refund.succeeded', 'debit', 4850],
      ['refund.succeeded', 'debit', 4850],
      ['charge.sale', 'credit', 9700],
    ]);
  });

  it('refunds from the available balance after release, and splits a refund across recipients in proportion', async () => {
    const charge = money.charge('seller_own', {
      split: [{ recipient_seller_id: 'seller_a', amount_cents: 2_500 }],
    });
    await money.publish(money.paid(charge));
    expect((await money.job('receivables-release', '2026-04-01')).body).toEqual({
      job: 'receivables-release',
      as_of_date: '2026-04-01',
      processed: 2,
      request_id: expect.any(String),
    });
    await money.publish(money.refunded(charge, 1_001));
    expect$(charge.charge_id, 8_999);
    const rs = await money.receivablesOf(charge.charge_id);
    expect(rs.map((r) => [r.seller_id, r.status, r.gross_amount_cents])).toEqual([
      ['seller_a', 'available', 2250],
      ['seller_own', 'available', 6749],
    ]);
  });

  it('settles each seller in a commit of its own: a run that fails on one seller keeps the others done, and the next run finishes', async () => {
    // Proves issue 16 item 6: the job no longer holds every seller in one transaction (and every relay with it).
    const a = money.charge('seller_a', { payment_method: 'pix', amount_cents: 10_000 });
    const b = money.charge('seller_b', { payment_method: 'pix', amount_cents: 20_000 });
    await money.publish(money.paid(a), money.paid(b));
    // Books that disagree with the receivables make seller_b's settlement fail its invariant (seller_a sorts first).
    const skew = (cents: number) =>
      money.receivablesDb.tx((trx) =>
        trx('seller_books')
          .where({ seller_id: 'seller_b' })
          .increment('receivables_available_cents', cents),
      );
    await skew(1);
    expect((await money.job('settlement-run', '2026-03-02')).statusCode).toBe(500);
    expect((await money.receivablesOf(a.charge_id)).map((r) => r.status)).toEqual(['paid']);
    expect(
      (await money.receivablesOf(b.charge_id)).map((r) => [r.status, r.settlement_id]),
    ).toEqual([['available', null]]);
    await skew(-1);
    expect((await money.job('settlement-run', '2026-03-02')).body).toMatchObject({ processed: 1 });
    const settlements = await money.get('/api/v1/settlements?status=paid');
    expect(settlements.body.data.map((s: any) => [s.seller_id, s.amount_cents]).sort()).toEqual([
      ['seller_a', expect.any(Number)],
      ['seller_b', expect.any(Number)],
    ]);
  });

  it('pages past sellers whose payout the bank refused: the sellers behind them are settled in the same run', async () => {
    // Proves issue 16 item 11: a run that re-read the first page stopped at refused sellers and never reached the rest.
    await money.stop();
    const bank: Bank = {
      transfer: async (s) => (s.sellerId === 'seller_a' ? 'failed' : 'paid'),
      status: async () => 'paid',
    };
    money = await Money.start(knex, { copies, bank, sellersPerRound: 1 });
    for (const seller of ['seller_a', 'seller_b', 'seller_c'])
      await money.publish(money.seller(seller));
    const sales = ['seller_a', 'seller_b', 'seller_c'].map((seller) =>
      money.charge(seller, { payment_method: 'pix' }),
    );
    await money.publish(...sales.map((c) => money.paid(c)));
    for (const c of sales) expect$(c.charge_id, 10_000);
    expect((await money.job('settlement-run', PAID)).body).toMatchObject({ processed: 3 });
    expect(
      (await money.receivablesOf(sales[0]!.charge_id)).map((r) => [r.status, r.settlement_id]),
    ).toEqual([['available', null]]);
    for (const c of sales.slice(1))
      expect((await money.receivablesOf(c.charge_id)).map((r) => r.status)).toEqual(['paid']);
    await checkInvariants(money, charges);
  });

  it('debits a refund after settlement from the balance: the debt is netted against the next money available', async () => {
    const first = money.charge('seller_own');
    await money.publish(money.paid(first));
    await money.job('receivables-release', '2026-04-01');
    const run = await money.job('settlement-run', '2026-04-01');
    expect(run.body).toMatchObject({
      job: 'settlement-run',
      as_of_date: '2026-04-01',
      processed: 1,
    });
    expect((await money.receivablesOf(first.charge_id))[0]).toMatchObject({
      status: 'paid',
      settlement_id: expect.stringMatching(/^set_/),
    });
    await money.publish(money.refunded(first, 4_000));
    expect$(first.charge_id, 6_000);
    // 40.00 of a 100.00 sale already paid out: the seller owes 40.00 - its MDR share (round(299 × 1) ... = 120).
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 0,
      available_cents: 0,
      requestable_cents: 0,
    });

    const second = money.charge('seller_own', { payment_method: 'pix', amount_cents: 10_000 });
    await money.publish(money.paid(second));
    expect$(second.charge_id, 10_000);
    const owed = 4_000 - (299 - 179); // MDR of 100.00 is 2.99; of the 60.00 left, 1.79
    expect(await money.balance('seller_own')).toMatchObject({
      available_cents: 9_901 - owed,
      requestable_cents: 9_901 - owed,
    });
    await money.job('settlement-run', '2026-04-02');
    const settlements = await money.get('/api/v1/settlements?status=paid');
    expect(
      settlements.body.data.map((s: any) => [
        s.amount_cents,
        s.receivable_count,
        s.settlement_date,
      ]),
    ).toEqual([
      [9_901 - owed, 1, '2026-04-02'],
      [9_701, 1, '2026-04-01'],
    ]);
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 0,
      available_cents: 0,
    });
    const history = await money.get(
      '/api/v1/balance/history',
      money.principal({ sellerId: 'seller_own' }),
    );
    expect(history.body.data.map((t: any) => [t.type, t.direction, t.amount_cents])).toEqual([
      ['payout.paid', 'debit', 9_901 - owed],
      ['charge.sale', 'credit', 9_901],
      ['refund.succeeded', 'debit', owed],
      ['payout.paid', 'debit', 9_701],
      ['charge.sale', 'credit', 9_701],
    ]);
  });

  it('refunds a 3x charge whose first installment was paid out: the rest is canceled, the paid part debited', async () => {
    const charge = money.charge('seller_own', { installments: 3 });
    await money.publish(money.paid(charge));
    await money.job('receivables-release', '2026-04-01');
    await money.job('settlement-run', '2026-04-01');
    await money.publish(money.refunded(charge, 10_000));
    expect$(charge.charge_id, 0);
    const rs = await money.receivablesOf(charge.charge_id);
    expect(rs.map((r) => r.status)).toEqual(['paid', 'canceled', 'canceled']);
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 0,
      available_cents: 0,
    });
  });

  it('debits a chargeback, gives it back when won, and keeps it when lost', async () => {
    const won = money.charge('seller_own');
    const lost = money.charge('seller_own', { payment_method: 'pix' });
    await money.publish(money.paid(won), money.paid(lost));
    expect((await money.balance('seller_own')).available_cents).toBe(9_901);
    await money.publish(money.chargeback('opened', won, 'cb_won1', 10_000));
    // The pending sale stays scheduled; its debit is netted against the Pix money available now.
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 9_701,
      available_cents: 200,
    });
    await money.publish(money.chargeback('won', won, 'cb_won1', 10_000));
    expect$(won.charge_id, 10_000);
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 9_701,
      available_cents: 9_901,
    });
    await money.job('settlement-run', '2026-03-02');
    await money.publish(
      money.chargeback('opened', lost, 'cb_lost1', 6_000),
      money.chargeback('lost', lost, 'cb_lost1', 6_000),
    );
    expect$(lost.charge_id, 4_000);
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 9_701,
      available_cents: 0,
    });
    await money.job('receivables-release', '2026-04-01');
    expect((await money.balance('seller_own')).available_cents).toBe(9_701 - (6_000 - (99 - 40)));
    const history = await money.get(
      '/api/v1/balance/history',
      money.principal({ sellerId: 'seller_own' }),
    );
    expect(history.body.data.map((t: any) => t.type)).toEqual([
      'chargeback.opened',
      'payout.paid',
      'chargeback.won',
      'chargeback.opened',
      'charge.sale',
      'charge.sale',
    ]);
  });

  it('gives a won chargeback back as available money when its debit was already settled', async () => {
    const charge = money.charge('seller_own', { payment_method: 'pix' });
    const other = money.charge('seller_own', { payment_method: 'pix', amount_cents: 20_000 });
    await money.publish(
      money.paid(charge),
      money.chargeback('opened', charge, 'cb_1', 10_000),
      money.paid(other),
    );
    await money.job('settlement-run', '2026-03-02');
    expect((await money.get('/api/v1/settlements')).body.data[0]).toMatchObject({
      amount_cents: 19_802 + 9_901 - 9_901,
      receivable_count: 2,
      status: 'paid',
    });
    await money.publish(money.chargeback('won', charge, 'cb_1', 10_000));
    expect$(charge.charge_id, 10_000);
    expect$(other.charge_id, 20_000);
    expect(await money.balance('seller_own')).toMatchObject({
      available_cents: 9_901,
      requestable_cents: 9_901,
    });
    expect((await money.job('settlement-run', '2026-03-03')).body.processed).toBe(1);
    expect((await money.get('/api/v1/settlements')).body.data[0]).toMatchObject({
      amount_cents: 9_901,
      receivable_count: 0,
    });
  });

  it('releases and settles across dates, each run idempotent for its date', async () => {
    const charge = money.charge('seller_own', { installments: 3 });
    await money.publish(money.paid(charge));
    expect$(charge.charge_id, 10_000);
    expect((await money.job('receivables-release', '2026-03-31')).body.processed).toBe(0);
    expect((await money.job('receivables-release', '2026-04-01')).body.processed).toBe(1);
    expect((await money.job('receivables-release', '2026-04-01')).body.processed).toBe(0);
    expect((await money.job('settlement-run', '2026-04-01')).body.processed).toBe(1);
    expect((await money.job('settlement-run', '2026-04-01')).body.processed).toBe(0);
    expect((await money.job('receivables-release', '2026-05-31')).body.processed).toBe(2);
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 0,
      available_cents: 3233 * 2,
    });
    expect((await money.job('settlement-run', '2026-05-31')).body.processed).toBe(1);
    const rs = await money.receivablesOf(charge.charge_id);
    expect(rs.map((r) => r.status)).toEqual(['paid', 'paid', 'paid']);
    const list = await money.get('/api/v1/settlements');
    expect(
      list.body.data.map((s: any) => [
        s.settlement_date,
        s.amount_cents,
        s.receivable_count,
        s.status,
      ]),
    ).toEqual([
      ['2026-05-31', 6466, 2, 'paid'],
      ['2026-04-01', 3234, 1, 'paid'],
    ]);
    const one = await money.get(`/api/v1/settlements/${list.body.data[0].id}`);
    expect(one.body).toEqual({ ...list.body.data[0], request_id: expect.stringMatching(/^req_/) });
    expect(one.body.paid_at).toEqual(expect.any(String));
  });

  it('anticipates two installments: the originals anticipated, their net less the fee available at once, paid out next', async () => {
    const charge = money.charge('seller_own', { installments: 3 });
    await money.publish(money.paid(charge));
    expect$(charge.charge_id, 10_000);
    const [i1, i2] = await money.receivablesOf(charge.charge_id);
    // Nets 3234 and 3233; fees 3234 × 199 × 30 / 300000 = 64.4 → 64 and 3233 × 199 × 60 / 300000 = 128.7 → 129.
    await money.publish(
      money.anticipated('seller_own', [
        { receivable: i1, feeCents: 64, days: 30 },
        { receivable: i2, feeCents: 129, days: 60 },
      ]),
    );
    const rs = (await money.receivablesOf(charge.charge_id)).map((r) => [
      r.installment,
      r.status,
      r.net_amount_cents,
    ]);
    expect(rs.sort()).toEqual([
      [1, 'anticipated', 3_234],
      [1, 'available', 3_170],
      [2, 'anticipated', 3_233],
      [2, 'available', 3_104],
      [3, 'pending', 3_233],
    ]);
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 3_233,
      available_cents: 3_170 + 3_104,
      requestable_cents: 3_170 + 3_104,
    });
    await checkInvariants(money, charges);
    await money.job('settlement-run', PAID);
    expect((await money.get('/api/v1/settlements')).body.data).toMatchObject([
      { status: 'paid', amount_cents: 6_274, receivable_count: 2 },
    ]);
  });

  it('debits a refund after an anticipation from the anticipated original and leaves the money it made available alone', async () => {
    // Contract §4 and receivable-states.md: an anticipated receivable is debited; the anticipation's new
    // receivable is the item's net, already the seller's. Several charges, so that neither receivable id
    // order can hide a take from the wrong one.
    const sales = Array.from({ length: 6 }, () => money.charge('seller_own'));
    await money.publish(...sales.map((c) => money.paid(c)));
    const originals = await Promise.all(
      sales.map(async (c) => (await money.receivablesOf(c.charge_id))[0]),
    );
    // 9701 × 199 × 30 / 300000 = 193.05 → 193 each: 9508 made available per sale.
    await money.publish(
      money.anticipated(
        'seller_own',
        originals.map((r) => ({ receivable: r, feeCents: 193, days: 30 })),
      ),
    );
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 0,
      available_cents: 6 * 9_508,
    });
    for (const c of sales) await money.publish(money.refunded(c, 4_000));
    for (const c of sales) expect$(c.charge_id, 6_000);

    for (const c of sales) {
      const rs = await money.receivablesOf(c.charge_id);
      expect(rs.map((r) => [r.status, r.gross_amount_cents, r.net_amount_cents]).sort()).toEqual([
        ['anticipated', 10_000, 9_701],
        ['available', 9_508, 9_508],
      ]);
    }
    // Each refund debits 4000 less the MDR given back (299 − 179 = 120): 3880 owed, netted against the available.
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 0,
      available_cents: 6 * (9_508 - 3_880),
    });
    await money.publish(...sales.map((c) => money.refunded(c, 6_000)));
    for (const c of sales) expect$(c.charge_id, 0);
    // Refunded in full, each sale's 9701 is owed back for 9508 received: the anticipation fee (6 × 193) stays owed.
    expect(await money.balance('seller_own')).toMatchObject({
      pending_cents: 0,
      available_cents: 0,
      requestable_cents: 0,
    });
  });

  it.each([
    [
      'the anticipated original',
      'receivables',
      'receivables',
      'anticipated',
      'net_amount_cents',
      /receivables counters .* != rows/,
    ],
    [
      'the receivable it created',
      'receivables',
      'receivables',
      'available',
      'net_amount_cents',
      /receivables counters .* != rows/,
    ],
    [
      "the seller's journal entry",
      'ledger',
      'journal_entries',
      null,
      'amount_cents',
      /the seller's entry is -98, its fee 97/,
    ],
  ] as const)(
    'finds a cent off in %s of an anticipation, and nothing once it is put back',
    async (_what, db, table, status, column, message) => {
      // Proves the checker accounts for anticipations to the cent: the corruption alone breaks it.
      const charge = money.charge('seller_own', { installments: 2 });
      await money.publish(money.paid(charge));
      expect$(charge.charge_id, 10_000);
      const [first] = await money.receivablesOf(charge.charge_id);
      const event = money.anticipated('seller_own', [
        { receivable: first, feeCents: 97, days: 30 },
      ]);
      await money.publish(event);
      await checkInvariants(money, charges);
      const where = {
        tenant_id: money.tenantId,
        anticipation_id: event[2].anticipation_id,
        ...(status === null ? {} : { status }),
      };
      const shift = (by: number) =>
        (db === 'receivables' ? money.receivablesDb : money.ledgerDb).tx(async (trx) => {
          expect(await trx(table).where(where).increment(column, by)).toBe(1);
        });
      await shift(1);
      await expect(checkInvariants(money, charges)).rejects.toThrow(message);
      await shift(-1);
    },
  );

  it('keeps a payout the bank has not confirmed reserved: available includes it, requestable does not', async () => {
    await money.stop();
    let outcome: 'processing' | 'paid' | 'failed' = 'processing';
    const bank: Bank = { transfer: async () => outcome, status: async () => outcome };
    money = await Money.start(knex, { copies, bank });
    await money.publish(money.seller('seller_own'));
    const charge = money.charge('seller_own', { payment_method: 'pix' });
    await money.publish(money.paid(charge));
    expect$(charge.charge_id, 10_000);
    await money.job('settlement-run', PAID);
    expect(await money.balance('seller_own')).toMatchObject({
      available_cents: 9_901,
      reserved_cents: 9_901,
      requestable_cents: 0,
    });
    await checkInvariants(money, charges);
    outcome = 'failed';
    await money.job('settlement-run', '2026-03-03');
    expect(await money.balance('seller_own')).toMatchObject({
      available_cents: 9_901,
      reserved_cents: 0,
      requestable_cents: 9_901,
    });
    await checkInvariants(money, charges);
    outcome = 'paid';
    await money.job('settlement-run', '2026-03-04');
    expect(await money.balance('seller_own')).toMatchObject({
      available_cents: 0,
      reserved_cents: 0,
    });
    expect((await money.get('/api/v1/settlements')).body.data.map((s: any) => s.status)).toEqual([
      'paid',
      'failed',
    ]);
  });
});
