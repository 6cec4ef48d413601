import { createPgliteKnex } from '@pgw/platform-db';
import { SIMULATION_RECEIVABLES_MAX } from '../operations/quote';
import { Harness, TODAY } from '../testing/harness';

// The embedded database boots in seconds on a busy machine: one per file, and room for it.
jest.setTimeout(60_000);
const knex = createPgliteKnex(null);
const harnesses: Harness[] = [];
afterAll(async () => {
  for (const h of harnesses) await h.stop();
  await knex.destroy();
});

/** A service on a schema of its own, with a tenant of its own: pricing plans and treasury are per tenant. */
async function fresh(treasuryCents = 1_000_000): Promise<Harness> {
  const h = await Harness.start(knex);
  harnesses.push(h);
  await h.tenant(treasuryCents);
  return h;
}

describe('POST /api/v1/anticipations/simulate', () => {
  let h: Harness;
  let r1: string;
  let r2: string;
  let ineligible: Record<string, string>;

  beforeAll(async () => {
    h = await fresh();
    await h.seller('seller_a');
    await h.seller('seller_b');
    // Published out of due order: the simulation lists the earliest due first.
    r2 = await h.receivable('seller_a', {
      gross_amount_cents: 3_334,
      fee_amount_cents: 100,
      net_amount_cents: 3_234,
      due_date: '2026-05-01',
    });
    r1 = await h.receivable('seller_a', {
      gross_amount_cents: 10_000,
      fee_amount_cents: 299,
      net_amount_cents: 9_701,
      due_date: '2026-04-01',
    });
    ineligible = {
      available: await h.receivable('seller_a', { status: 'available' }),
      dueToday: await h.receivable('seller_a', { due_date: TODAY }),
      dueYesterday: await h.receivable('seller_a', { due_date: '2026-03-01' }),
      anticipated: await h.receivable('seller_a', { anticipation_id: 'ant_elsewhere1' }),
      chargedBackWhole: await h.receivable('seller_a', { debited_gross_cents: 10_000 }),
      otherSeller: await h.receivable('seller_b'),
      live: await h.receivable('seller_a', {}, { livemode: true }),
    };
  }, 120_000);

  it("prices every eligible receivable with the seller's own configuration, earliest due first", async () => {
    // Proves eligibility (pending, not anticipated, due after today, this seller and environment), the
    // item arithmetic (hand-computed), the totals, the pricing echo and both limit blocks.
    const res = await h.simulate();
    expect(res.statusCode).toBe(200);
    // 9701 × 199 × 30 / 300000 = 193.05 → 193; 3234 × 199 × 60 / 300000 = 128.71 → 129.
    expect(res.body).toEqual({
      object: 'anticipation_simulation',
      eligible_receivable_count: 2,
      gross_amount_cents: 12_935,
      fee_amount_cents: 322,
      net_amount_cents: 12_613,
      fee_bps_per_month: 199,
      settlement_delay_days: 30,
      pricing_plan_id: null,
      items: [
        {
          days_anticipated: 30,
          gross_amount_cents: 9_701,
          fee_amount_cents: 193,
          net_amount_cents: 9_508,
        },
        {
          days_anticipated: 60,
          gross_amount_cents: 3_234,
          fee_amount_cents: 129,
          net_amount_cents: 3_105,
        },
      ],
      exposure: {
        limit_cents: 100_000_000,
        outstanding_cents: 0,
        projected_cents: 12_935,
        available_cents: 100_000_000,
        within_limit: true,
      },
      treasury: {
        available_cash_cents: 1_000_000,
        requested_cash_out_cents: 12_613,
        within_limit: true,
      },
      request_id: expect.stringMatching(/^req_/),
    });
  });

  it('simulates the receivables named, in the order named', async () => {
    // Proves receivable_ids narrows the simulation and keeps the request's order.
    const res = await h.simulate({ receivable_ids: [r2, r1] });
    expect(res.statusCode).toBe(200);
    expect(res.body.items.map((i: { gross_amount_cents: number }) => i.gross_amount_cents)).toEqual(
      [3_234, 9_701],
    );
    expect(res.body).toMatchObject({
      eligible_receivable_count: 2,
      gross_amount_cents: 12_935,
      fee_amount_cents: 322,
    });
    expect((await h.simulate({ receivable_ids: [r2] })).body).toMatchObject({
      eligible_receivable_count: 1,
      gross_amount_cents: 3_234,
      fee_amount_cents: 129,
      net_amount_cents: 3_105,
    });
  });

  it.each([
    'available',
    'dueToday',
    'dueYesterday',
    'anticipated',
    'chargedBackWhole',
    'otherSeller',
    'live',
  ])(
    'refuses a receivable that is not eligible (%s) with 422 receivable_not_eligible on its index',
    async (which) => {
      // Proves each ineligible kind is named by its position, and another seller's or environment's looks the same.
      const res = await h.simulate({ receivable_ids: [r1, ineligible[which]] });
      expect(res.statusCode).toBe(422);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'receivable_not_eligible',
        param: 'receivable_ids.1',
      });
    },
  );

  it('refuses an unknown receivable id the same way', async () => {
    // Proves an id that matches the pattern but names nothing is not eligible.
    const res = await h.simulate({ receivable_ids: ['recv_doesnotexist'] });
    expect([res.statusCode, res.body.error.code, res.body.error.param]).toEqual([
      422,
      'receivable_not_eligible',
      'receivable_ids.0',
    ]);
  });

  it.each([
    [
      'an id off its pattern',
      { receivable_ids: ['recv_ok', 'rcv_bad'] },
      'parameter_invalid',
      'receivable_ids.1',
    ],
    [
      'an id with a dash',
      { receivable_ids: ['recv_a-b'] },
      'parameter_invalid',
      'receivable_ids.0',
    ],
    ['an empty list', { receivable_ids: [] }, 'parameter_invalid', 'receivable_ids'],
    [
      '101 ids',
      { receivable_ids: Array.from({ length: 101 }, (_, i) => `recv_x${i}`) },
      'parameter_invalid',
      'receivable_ids',
    ],
    [
      'a repeated id',
      { receivable_ids: ['recv_same', 'recv_same'] },
      'parameter_invalid',
      'receivable_ids.1',
    ],
    ['a number for an id', { receivable_ids: [7] }, 'parameter_invalid', 'receivable_ids.0'],
    ['an unknown field', { receivable_ids: ['recv_ok'], amount: 1 }, 'parameter_unknown', 'amount'],
  ])('answers 422 for %s', async (_what, body, code, param) => {
    // Proves the body rules of api-v1 (1 to 100 ids matching ^recv_[A-Za-z0-9]+$, unknown fields refused).
    const res = await h.simulate(body);
    expect(res.statusCode).toBe(422);
    expect(res.body.error).toMatchObject({ code, param });
  });

  it('accepts 100 ids (the most), answering for the first one that is not eligible', async () => {
    // Proves the upper bound is inclusive.
    const ids = [r1, ...Array.from({ length: 99 }, (_, i) => `recv_x${i}`)];
    const res = await h.simulate({ receivable_ids: ids });
    expect([res.statusCode, res.body.error.code, res.body.error.param]).toEqual([
      422,
      'receivable_not_eligible',
      'receivable_ids.1',
    ]);
  });

  it('keeps the highest version of a receivable: a late, older event does not bring it back', async () => {
    // Proves the local copy follows receivable-changed by version, and a released receivable drops out.
    const id = await h.receivable('seller_b', { due_date: '2026-04-10' });
    const principal = h.principal({ sellerId: 'seller_b' });
    expect((await h.simulate({ receivable_ids: [id] }, principal)).statusCode).toBe(200);
    await h.receivable('seller_b', { receivable_id: id, status: 'available', version: 5 });
    await h.receivable('seller_b', { receivable_id: id, status: 'pending', version: 4 });
    expect((await h.simulate({ receivable_ids: [id] }, principal)).body.error.code).toBe(
      'receivable_not_eligible',
    );
  });

  it('answers zeros, not an error, for a seller with nothing eligible', async () => {
    // Proves "all eligible" of nothing is an empty simulation.
    await h.seller('seller_empty');
    const res = await h.simulate(undefined, h.principal({ sellerId: 'seller_empty' }));
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatchObject({
      eligible_receivable_count: 0,
      gross_amount_cents: 0,
      fee_amount_cents: 0,
      net_amount_cents: 0,
      items: [],
      exposure: { projected_cents: 0, within_limit: true },
    });
  });

  it('answers 503 with Retry-After while the seller is not yet known here', async () => {
    // Proves a seller the directory has not reached yet is not priced with guessed terms.
    const res = await h.simulate(undefined, h.principal({ sellerId: 'seller_unheard' }));
    expect([res.statusCode, res.body.error.code, res.headers['retry-after']]).toEqual([
      503,
      'service_unavailable',
      '1',
    ]);
  });

  it('needs a seller-scoped key with anticipations:read (re-checked behind the gateway)', async () => {
    // Proves the service refuses, by itself, what the gateway should have refused.
    const noSeller = await h.simulate(undefined, h.principal({ sellerId: null }));
    expect([noSeller.statusCode, noSeller.body.error.code]).toEqual([403, 'seller_scope_required']);
    const noPermission = await h.simulate(
      undefined,
      h.principal({ permissions: ['anticipations:create'] }),
    );
    expect([noPermission.statusCode, noPermission.body.error.code]).toEqual([
      403,
      'permission_denied',
    ]);
    const noPrincipal = await h.request('POST', '/api/v1/anticipations/simulate', {
      principal: null,
    });
    expect(noPrincipal.statusCode).toBe(401);
    // 403 before 422: the body is not looked at for a key that may not simulate.
    const both = await h.simulate({ receivable_ids: [] }, h.principal({ sellerId: null }));
    expect(both.statusCode).toBe(403);
  });
});

describe('pricing sources, echoed by the simulation', () => {
  it("uses the seller's own configuration when the tenant has no plan (pricing_plan_id null)", async () => {
    // Proves the third source: the seller's fee and D+N, and a null plan id.
    const h = await fresh();
    await h.seller('seller_a', { fee_bps_per_month: 210, settlement_delay_days: 31 });
    await h.receivable('seller_a', {
      net_amount_cents: 10_000,
      fee_amount_cents: 0,
      gross_amount_cents: 10_000,
      due_date: '2026-04-01',
    });
    const res = await h.simulate();
    // 10000 × 210 × 30 / 300000 = 210.
    expect(res.body).toMatchObject({
      fee_bps_per_month: 210,
      settlement_delay_days: 31,
      pricing_plan_id: null,
      fee_amount_cents: 210,
    });
  });

  it("uses the tenant's default plan over the seller's configuration", async () => {
    // Proves the second source; a plan that is not the default does not count.
    const h = await fresh();
    await h.seller('seller_a', { fee_bps_per_month: 210 });
    await h.plan('plan_other', { fee_bps_per_month: 999, is_default: false });
    await h.plan('plan_default', {
      fee_bps_per_month: 150,
      settlement_delay_days: 15,
      is_default: true,
    });
    await h.receivable('seller_a', {
      net_amount_cents: 10_000,
      fee_amount_cents: 0,
      gross_amount_cents: 10_000,
      due_date: '2026-04-01',
    });
    const res = await h.simulate();
    // 10000 × 150 × 30 / 300000 = 150.
    expect(res.body).toMatchObject({
      fee_bps_per_month: 150,
      settlement_delay_days: 15,
      pricing_plan_id: 'plan_default',
      fee_amount_cents: 150,
    });
  });

  it("uses the seller's override plan over the default plan", async () => {
    // Proves the first source, and that the override waits for its plan's copy rather than falling through.
    const h = await fresh();
    await h.plan('plan_default', { fee_bps_per_month: 150, is_default: true });
    await h.seller('seller_a', { pricing_plan_id: 'plan_override' });
    await h.receivable('seller_a', {
      net_amount_cents: 10_000,
      fee_amount_cents: 0,
      gross_amount_cents: 10_000,
      due_date: '2026-04-01',
    });
    expect((await h.simulate()).statusCode).toBe(503);
    await h.plan('plan_override', { fee_bps_per_month: 120, settlement_delay_days: 2 });
    const res = await h.simulate();
    // 10000 × 120 × 30 / 300000 = 120.
    expect(res.body).toMatchObject({
      fee_bps_per_month: 120,
      settlement_delay_days: 2,
      pricing_plan_id: 'plan_override',
      fee_amount_cents: 120,
    });
  });
});

describe('limits on the simulation (within_limit false, still 200)', () => {
  it('exposure: the seller limit against outstanding + this request', async () => {
    // Proves the exposure block when the request passes the seller's limit.
    const h = await fresh();
    await h.seller('seller_a', { anticipation_limit_cents: 10_000 });
    await h.receivable('seller_a', { due_date: '2026-04-01' });
    await h.receivable('seller_a', { due_date: '2026-04-02' });
    const res = await h.simulate();
    expect(res.statusCode).toBe(200);
    expect(res.body.exposure).toEqual({
      limit_cents: 10_000,
      outstanding_cents: 0,
      projected_cents: 19_402,
      available_cents: 10_000,
      within_limit: false,
    });
    expect(res.body.treasury.within_limit).toBe(true);
  });

  it("treasury: the tenant's available cash against this request's net", async () => {
    // Proves the treasury block when the net passes the tenant's cash.
    const h = await fresh(9_000);
    await h.seller('seller_a');
    await h.receivable('seller_a', { due_date: '2026-04-01' });
    const res = await h.simulate();
    expect(res.body.treasury).toEqual({
      available_cash_cents: 9_000,
      requested_cash_out_cents: 9_508,
      within_limit: false,
    });
    expect(res.body.exposure.within_limit).toBe(true);
  });
});

describe('simulate has no side effects', () => {
  it('leaves every table of the schema exactly as it was (row counts and contents), whatever it answers', async () => {
    // Proves "pure preview": all eligible, a subset, refusals, out-of-limit answers, and an Idempotency-Key
    // header all leave no trace, not even in the outbox, the treasury or the idempotency keys.
    const h = await fresh(5_000);
    await h.seller('seller_a', { anticipation_limit_cents: 5_000 });
    const id = await h.receivable('seller_a', { due_date: '2026-04-01' });
    await h.receivable('seller_a', { due_date: '2026-05-01' });
    // The outbox relay renews its lease in the background whatever the requests do: stopped here, so
    // that any difference below is the simulation's.
    await h.service.relay.stop();
    const before = await h.snapshot();
    expect(before.receivables).toHaveLength(2);
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining([
        'anticipations',
        'anticipation_items',
        'treasury',
        'idempotency_keys',
        'outbox',
        'inbox',
        'receivables',
        'sellers',
        'tenants',
        'pricing_plans',
      ]),
    );

    const answers = [
      await h.simulate(),
      await h.simulate({ receivable_ids: [id] }),
      await h.simulate({ receivable_ids: ['recv_nope'] }),
      await h.simulate({ receivable_ids: ['bad'] }),
      await h.request('POST', '/api/v1/anticipations/simulate', {
        body: {},
        headers: { 'idempotency-key': 'sim-1' },
      }),
      await h.simulate(undefined, h.principal({ sellerId: null })),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 422, 422, 200, 403]);
    expect(answers[0]!.body.exposure.within_limit).toBe(false);
    expect(answers[0]!.body.treasury.within_limit).toBe(false);
    expect(await h.snapshot()).toEqual(before);
  });
});

describe('POST /api/v1/anticipations/simulate over all eligible receivables', () => {
  // Proves issue 16 item 9: one call prices a bounded number of receivables, and says how to go on past it.
  it(`prices ${SIMULATION_RECEIVABLES_MAX} eligible receivables and refuses one more with 422 on receivable_ids`, async () => {
    const h = await fresh();
    await h.seller('seller_many');
    const first = await h.receivable('seller_many', { due_date: '2026-04-01' });
    const copies = (n: number, from: number) =>
      h.db.tx((trx) =>
        trx.raw(
          `insert into receivables (receivable_id, tenant_id, livemode, seller_id, charge_id, status, gross_amount_cents, net_amount_cents, debited_gross_cents, due_date, anticipation_id, anticipated_by, version)
           select 'recv_copy' || g, tenant_id, livemode, seller_id, charge_id, status, gross_amount_cents, net_amount_cents, debited_gross_cents, due_date, anticipation_id, anticipated_by, version
           from receivables, generate_series(?::int, ?::int) g where receivable_id = ?`,
          [from, from + n - 1, first],
        ),
      );
    await copies(SIMULATION_RECEIVABLES_MAX - 1, 1);
    const atBound = await h.simulate({}, h.principal({ sellerId: 'seller_many' }));
    expect([atBound.statusCode, atBound.body.eligible_receivable_count]).toEqual([
      200,
      SIMULATION_RECEIVABLES_MAX,
    ]);
    await copies(1, SIMULATION_RECEIVABLES_MAX);
    const over = await h.simulate({}, h.principal({ sellerId: 'seller_many' }));
    expect([over.statusCode, over.body.error]).toEqual([
      422,
      expect.objectContaining({ code: 'parameter_invalid', param: 'receivable_ids' }),
    ]);
  }, 120_000);
});
