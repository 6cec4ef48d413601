import { createPgliteKnex } from '@pgw/platform-db';
import { Harness } from '../testing/harness';

jest.setTimeout(60_000);
const knex = createPgliteKnex(null);
const harnesses: Harness[] = [];
afterAll(async () => {
  for (const h of harnesses) await h.stop();
  await knex.destroy();
});

/** A service on a schema of its own, with a tenant of its own and seller_a known. */
async function fresh(
  options: { treasuryCents?: number; limitCents?: number } = {},
): Promise<Harness> {
  const h = await Harness.start(knex);
  harnesses.push(h);
  await h.tenant(options.treasuryCents ?? 1_000_000);
  await h.seller('seller_a', { anticipation_limit_cents: options.limitCents ?? 100_000_000 });
  return h;
}

const count = async (h: Harness, table: string) =>
  Number(((await h.db.read((q) => q(table).count({ n: '*' }))) as Array<{ n: unknown }>)[0]?.n);

describe('POST /api/v1/anticipations', () => {
  it('executes: 201 with the anticipation resource, the copies taken out, exposure and treasury moved, one event', async () => {
    // Proves the whole execution: resource of contract §4a, atomic local effects and the outbox event.
    const h = await fresh();
    const r1 = await h.receivable('seller_a', { due_date: '2026-04-01' });
    const r2 = await h.receivable('seller_a', {
      gross_amount_cents: 3_334,
      fee_amount_cents: 100,
      net_amount_cents: 3_234,
      due_date: '2026-05-01',
    });
    const simulated = await h.simulate();

    const res = await h.execute(undefined, { key: 'k-1' });
    expect(res.statusCode).toBe(201);
    expect(res.body).toEqual({
      object: 'anticipation',
      id: expect.stringMatching(/^ant_[A-Za-z0-9]+$/),
      status: 'succeeded',
      seller_id: 'seller_a',
      gross_amount_cents: 12_935,
      fee_amount_cents: 322,
      net_amount_cents: 12_613,
      fee_bps_per_month: 199,
      settlement_delay_days: 30,
      pricing_plan_id: null,
      receivable_ids: [r1, r2],
      items: simulated.body.items.map((item: object, i: number) => ({
        receivable_id: [r1, r2][i],
        ...item,
      })),
      created_at: '2026-03-02T12:00:00.000Z',
      request_id: expect.stringMatching(/^req_/),
    });

    // The receivables are out of every later anticipation; the exposure counts them; the treasury paid the net.
    const after = await h.simulate();
    expect(after.body).toMatchObject({ eligible_receivable_count: 0, items: [] });
    expect(after.body.exposure).toMatchObject({
      outstanding_cents: 12_935,
      available_cents: 100_000_000 - 12_935,
    });
    expect(after.body.treasury.available_cash_cents).toBe(1_000_000 - 12_613);

    const [event, ...more] = await h.executedEvents();
    expect(more).toHaveLength(0);
    expect(event).toMatchObject({
      key: 'seller_a',
      anticipation_id: res.body.id,
      seller_id: 'seller_a',
      status: 'succeeded',
      executed_on: '2026-03-02',
      gross_amount_cents: 12_935,
      fee_amount_cents: 322,
      net_amount_cents: 12_613,
      fee_bps_per_month: 199,
      settlement_delay_days: 30,
      pricing_plan_id: null,
      items: [
        {
          receivable_id: r1,
          due_date: '2026-04-01',
          receivable_version: 1,
          days_anticipated: 30,
          gross_amount_cents: 9_701,
          fee_amount_cents: 193,
          net_amount_cents: 9_508,
        },
        {
          receivable_id: r2,
          due_date: '2026-05-01',
          receivable_version: 1,
          days_anticipated: 60,
          gross_amount_cents: 3_234,
          fee_amount_cents: 129,
          net_amount_cents: 3_105,
        },
      ],
      envelope: { tenant_id: h.tenantId, livemode: false, producer: 'anticipation' },
    });
    // The webhook's data.object (anticipation.succeeded) is the resource, without the request's id.
    const { request_id: _requestId, ...resource } = res.body;
    expect(JSON.parse(event!.resource_json)).toEqual(resource);
  });

  it('takes only the receivables named, in their order, and leaves the rest eligible', async () => {
    // Proves receivable_ids on execution and that the others stay anticipatable.
    const h = await fresh();
    const r1 = await h.receivable('seller_a', { due_date: '2026-04-01' });
    const r2 = await h.receivable('seller_a', { due_date: '2026-04-15' });
    const r3 = await h.receivable('seller_a', { due_date: '2026-05-01' });
    const res = await h.execute({ receivable_ids: [r3, r1] });
    expect(res.statusCode).toBe(201);
    expect(res.body.receivable_ids).toEqual([r3, r1]);
    expect((await h.simulate()).body).toMatchObject({
      eligible_receivable_count: 1,
      items: [{ days_anticipated: 44 }],
    }); // r2, due 2026-04-15
    const again = await h.execute({ receivable_ids: [r2, r1] });
    expect([again.statusCode, again.body.error.code, again.body.error.param]).toEqual([
      422,
      'receivable_not_eligible',
      'receivable_ids.1',
    ]);
  });

  it('refuses with 422 receivable_not_eligible when the seller has nothing eligible', async () => {
    // Proves an execution of nothing is refused rather than recorded.
    const h = await fresh();
    const res = await h.execute();
    expect([res.statusCode, res.body.error.code]).toEqual([422, 'receivable_not_eligible']);
    expect(await count(h, 'anticipations')).toBe(0);
  });

  it('refuses with 422 receivable_not_eligible an anticipation whose fee takes the whole net, and changes nothing', async () => {
    // Proves issue 16 item 11: an anticipation that would pay the seller nothing is not recorded.
    const h = await fresh();
    // Net 1 cent due 761 days out: fee = round_half_up(1 × 199 × 761 / 300000) = round(0.505) = 1, net 0.
    const tiny = await h.receivable('seller_a', {
      gross_amount_cents: 300,
      fee_amount_cents: 299,
      net_amount_cents: 1,
      due_date: '2028-04-01',
    });
    const simulated = await h.simulate({ receivable_ids: [tiny] });
    expect(simulated.body).toMatchObject({ fee_amount_cents: 1, net_amount_cents: 0 });
    const res = await h.execute({ receivable_ids: [tiny] });
    expect([res.statusCode, res.body.error]).toEqual([
      422,
      expect.objectContaining({ code: 'receivable_not_eligible', param: 'receivable_ids' }),
    ]);
    expect(await count(h, 'anticipations')).toBe(0);
  });

  it('refuses past the exposure limit with 422 anticipation_limit_exceeded and changes nothing; at the limit exactly it executes', async () => {
    // Proves the exposure limit on execution, both sides of the boundary, counting earlier anticipations.
    const h = await fresh({ limitCents: 9_701 * 2 });
    const r1 = await h.receivable('seller_a', { due_date: '2026-04-01' });
    const r2 = await h.receivable('seller_a', { due_date: '2026-04-02' });
    const r3 = await h.receivable('seller_a', { due_date: '2026-04-03' });
    await h.service.relay.stop();
    const before = await h.snapshot();
    const over = await h.execute();
    expect([over.statusCode, over.body.error.type, over.body.error.code]).toEqual([
      422,
      'invalid_request_error',
      'anticipation_limit_exceeded',
    ]);
    expect(await h.snapshot()).toEqual(before);
    expect((await h.execute({ receivable_ids: [r1, r2] })).statusCode).toBe(201);
    const third = await h.execute({ receivable_ids: [r3] });
    expect([third.statusCode, third.body.error.code]).toEqual([422, 'anticipation_limit_exceeded']);
  });

  it("refuses past the treasury's cash with 422 treasury_limit_exceeded and changes nothing; a top-up lets it through", async () => {
    // Proves the treasury limit on execution, that executions spend it, and that a new figure from the directory counts.
    const h = await fresh({ treasuryCents: 9_508 });
    const r1 = await h.receivable('seller_a', { due_date: '2026-04-01' });
    const r2 = await h.receivable('seller_a', { due_date: '2026-04-01' });
    await h.service.relay.stop();
    const before = await h.snapshot();
    const over = await h.execute();
    expect([over.statusCode, over.body.error.code]).toEqual([422, 'treasury_limit_exceeded']);
    expect(await h.snapshot()).toEqual(before);
    expect((await h.execute({ receivable_ids: [r1] })).statusCode).toBe(201); // 9,508 of 9,508
    expect((await h.execute({ receivable_ids: [r2] })).body.error.code).toBe(
      'treasury_limit_exceeded',
    );
    await h.tenant(9_508 * 2);
    expect((await h.execute({ receivable_ids: [r2] })).statusCode).toBe(201);
  });

  it('needs a seller-scoped key with anticipations:create (re-checked behind the gateway)', async () => {
    // Proves the service's own scope check on execution, before the body is read.
    const h = await fresh();
    await h.receivable('seller_a');
    const noSeller = await h.execute(undefined, { principal: h.principal({ sellerId: null }) });
    expect([noSeller.statusCode, noSeller.body.error.code]).toEqual([403, 'seller_scope_required']);
    const readOnly = await h.execute(
      { receivable_ids: 'x' },
      { principal: h.principal({ permissions: ['anticipations:read'] }) },
    );
    expect([readOnly.statusCode, readOnly.body.error.code]).toEqual([403, 'permission_denied']);
    expect(await count(h, 'anticipations')).toBe(0);
  });
});

describe('Idempotency-Key on POST /api/v1/anticipations (contract §3)', () => {
  it('replays the first answer with Idempotent-Replayed: true, and anticipates once', async () => {
    // Proves same key + same body = the stored 201, no second anticipation, no second event or cash-out.
    const h = await fresh();
    const id = await h.receivable('seller_a');
    await h.receivable('seller_a', { due_date: '2026-06-01' });
    const first = await h.execute({ receivable_ids: [id] }, { key: 'same' });
    const replay = await h.execute({ receivable_ids: [id] }, { key: 'same' });
    expect(first.statusCode).toBe(201);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const { request_id: _a, ...firstBody } = first.body;
    const { request_id: _b, ...replayBody } = replay.body;
    expect(replayBody).toEqual(firstBody);
    expect(await count(h, 'anticipations')).toBe(1);
    expect(await h.executedEvents()).toHaveLength(1);
    expect((await h.simulate()).body.treasury.available_cash_cents).toBe(
      1_000_000 - first.body.net_amount_cents,
    );
  });

  it('answers 409 idempotency_key_reused for the same key with another body, and keeps a refusal as the answer', async () => {
    // Proves key reuse is refused, and that a 422 is replayed under its key even once the cause is gone.
    const h = await fresh({ treasuryCents: 0 });
    const id = await h.receivable('seller_a');
    const refused = await h.execute({ receivable_ids: [id] }, { key: 'k' });
    expect(refused.body.error.code).toBe('treasury_limit_exceeded');
    const reused = await h.execute(undefined, { key: 'k' });
    expect([reused.statusCode, reused.body.error.type, reused.body.error.code]).toEqual([
      409,
      'idempotency_error',
      'idempotency_key_reused',
    ]);
    await h.tenant(1_000_000);
    const replayed = await h.execute({ receivable_ids: [id] }, { key: 'k' });
    expect([
      replayed.statusCode,
      replayed.body.error.code,
      replayed.headers['idempotent-replayed'],
    ]).toEqual([422, 'treasury_limit_exceeded', 'true']);
    expect((await h.execute({ receivable_ids: [id] }, { key: 'k2' })).statusCode).toBe(201);
  });

  it('scopes keys by tenant, environment and path, and refuses a key of 0 or more than 255 characters', async () => {
    // Proves the key's scope and its length rule (422 parameter_invalid on param Idempotency-Key).
    const h = await fresh();
    await h.receivable('seller_a');
    const long = await h.execute(undefined, { key: 'x'.repeat(256) });
    expect([long.statusCode, long.body.error.code, long.body.error.param]).toEqual([
      422,
      'parameter_invalid',
      'Idempotency-Key',
    ]);
    const empty = await h.request('POST', '/api/v1/anticipations', {
      headers: { 'idempotency-key': '' },
    });
    expect([empty.statusCode, empty.body.error.param]).toEqual([422, 'Idempotency-Key']);
    expect((await h.execute(undefined, { key: 'x'.repeat(255) })).statusCode).toBe(201);
    // The same key in the live environment is another key: not a replay of the test one.
    const live = await h.execute(undefined, {
      key: 'x'.repeat(255),
      principal: h.principal({ livemode: true }),
    });
    expect([live.statusCode, live.body.error.code, live.headers['idempotent-replayed']]).toEqual([
      422,
      'receivable_not_eligible',
      undefined,
    ]);
  });

  it("two sellers' keys sending the same Idempotency-Key and body get an anticipation each, of their own receivables", async () => {
    // Proves a seller-scoped key has a namespace of its own: seller_b is never answered with seller_a's anticipation.
    const h = await fresh();
    await h.seller('seller_b', { anticipation_limit_cents: 100_000_000 });
    const a = await h.receivable('seller_a');
    const b = await h.receivable('seller_b');
    const first = await h.execute(undefined, { key: 'shared' });
    const second = await h.execute(undefined, {
      key: 'shared',
      principal: h.principal({ sellerId: 'seller_b' }),
    });
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect([first.body.seller_id, first.body.receivable_ids]).toEqual(['seller_a', [a]]);
    expect([second.body.seller_id, second.body.receivable_ids]).toEqual(['seller_b', [b]]);
    expect(await count(h, 'anticipations')).toBe(2);
    const again = await h.execute(undefined, {
      key: 'shared',
      principal: h.principal({ sellerId: 'seller_b' }),
    });
    expect([again.headers['idempotent-replayed'], again.body.id]).toEqual(['true', second.body.id]);
  });

  it("replays a stored anticipation only to its seller, even found in another seller's namespace: 409 reused", async () => {
    // Proves the replay check (mayRead): an answer naming another seller's anticipation is never sent.
    const h = await fresh();
    await h.seller('seller_b', { anticipation_limit_cents: 100_000_000 });
    await h.receivable('seller_a');
    const first = await h.execute(undefined, { key: 'moved' });
    // As if the answer had been kept in seller_b's namespace.
    await h.db.tx((trx) =>
      trx('idempotency_keys').where({ key: 'moved' }).update({ seller_scope: 'seller_b' }),
    );
    const other = await h.execute(undefined, {
      key: 'moved',
      principal: h.principal({ sellerId: 'seller_b' }),
    });
    expect([other.statusCode, other.body.error.code]).toEqual([409, 'idempotency_key_reused']);
    expect(JSON.stringify(other.body)).not.toContain(first.body.id);
  });

  it('two requests racing with one key: one anticipation, the other a replay or 409 idempotency_key_in_use', async () => {
    // Proves a key taken by a request still running is not executed twice.
    const h = await fresh();
    await h.receivable('seller_a');
    const answers = await Promise.all([
      h.execute(undefined, { key: 'race' }),
      h.execute(undefined, { key: 'race' }),
    ]);
    const outcomes = answers
      .map((a) =>
        a.statusCode === 201
          ? a.headers['idempotent-replayed'] === 'true'
            ? 'replay'
            : 'created'
          : a.body.error.code,
      )
      .sort();
    expect([
      ['created', 'replay'],
      ['created', 'idempotency_key_in_use'],
    ]).toContainEqual(outcomes);
    expect(await count(h, 'anticipations')).toBe(1);
  });
});

describe('concurrent executions over the same receivables (embedded database)', () => {
  it('never anticipates a receivable twice: one 201, the rest 422 receivable_not_eligible', async () => {
    // Proves the locks and the re-check under them: eight racing requests over the same two receivables.
    const h = await fresh();
    const ids = [
      await h.receivable('seller_a'),
      await h.receivable('seller_a', { due_date: '2026-05-01' }),
    ];
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        h.execute(i % 2 === 0 ? { receivable_ids: ids } : { receivable_ids: [...ids].reverse() }),
      ),
    );
    const created = answers.filter((a) => a.statusCode === 201);
    expect(created).toHaveLength(1);
    for (const a of answers.filter((x) => x.statusCode !== 201))
      expect([a.statusCode, a.body.error.code]).toEqual([422, 'receivable_not_eligible']);
    expect(await count(h, 'anticipation_items')).toBe(2);
    expect(await h.executedEvents()).toHaveLength(1);
    const cashOut = (await h.db.read((q) => q('treasury').first('cash_out_cents'))) as {
      cash_out_cents: unknown;
    };
    expect(Number(cashOut.cash_out_cents)).toBe(created[0]!.body.net_amount_cents);
  });

  it('"all eligible" racing "all eligible": one takes them, the other finds nothing', async () => {
    // Proves the omitted-ids path locks and re-checks too.
    const h = await fresh();
    await h.receivable('seller_a');
    await h.receivable('seller_a', { due_date: '2026-05-01' });
    const answers = await Promise.all([h.execute(), h.execute(), h.execute()]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 422, 422]);
    expect(await count(h, 'anticipation_items')).toBe(2);
  });
});
