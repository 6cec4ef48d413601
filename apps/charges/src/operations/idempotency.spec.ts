import { newId } from '@pgw/domain';
import { createPgliteKnex } from '@pgw/platform-db';
import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import { requestHash } from '@pgw/platform-idempotency';
import { ManualClock } from '@pgw/platform-service';
import { waitFor } from '@pgw/testing';
import {
  apiKey,
  cardCharge,
  merchant,
  outboxEvents,
  post,
  startCharges,
  transactionsDuring,
  type Harness,
  type Merchant,
} from '../testing/harness';

const knex = createPgliteKnex(null);
// The service's clock: a key's age is measured on it, so the test backdates keys against it too.
const clock = new ManualClock(new Date());
let h: Harness;
let m: Merchant;

beforeAll(async () => {
  // A generous acquirer deadline: this file tests idempotency, and 20 concurrent requests on a busy
  // machine must not turn into timeouts (pending charges) that the deadline tests cover elsewhere.
  h = await startCharges(knex, {
    clock,
    env: { ACQUIRER_TIMEOUT_MS: '10000', CHARGES_RECOVERY_MIN_AGE_MS: '10000' },
  });
  m = await merchant(h);
}, 60_000);

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

const withKey = (key: string, headers: Record<string, string> = m.key) => ({
  ...headers,
  'idempotency-key': key,
});
const chargesWith = async (orderId: string): Promise<number> => {
  const rows = await h.db.read((q) =>
    q('charges')
      .whereRaw('metadata_json like ?', [`%${orderId}%`])
      .count<{ n: string }[]>({ n: '*' }),
  );
  return Number(rows[0]!.n);
};
const withoutRequestId = (body: Record<string, unknown>) => {
  const { request_id: _r, ...rest } = body;
  return rest;
};

describe('Idempotency-Key (contract §3)', () => {
  it('replays the first answer, same status and body, with Idempotent-Replayed: true, and charges once', async () => {
    // Proves a retried create makes no second charge, no second authorization and no second event.
    const orderId = newId('ch_');
    const body = cardCharge(m.token(), { metadata: { order: orderId } });
    const first = await post(h, '/api/v1/charges', withKey(`k-${orderId}`), body);
    const again = await post(h, '/api/v1/charges', withKey(`k-${orderId}`), body);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(withoutRequestId(again.json())).toEqual(withoutRequestId(first.json()));
    // Each answer carries its own request's id, equal to its X-Request-Id header.
    expect(again.json().request_id).toBe(again.headers['x-request-id']);
    expect(await chargesWith(orderId)).toBe(1);
    expect(h.acquirer.authorizeCalls.filter((r) => r === first.json().id)).toHaveLength(1);
    expect((await outboxEvents(h, first.json().id)).map((e) => e.type)).toEqual([
      'charges.charge-created.v1',
      'charges.charge-paid.v2',
    ]);
  });

  it('answers 409 idempotency_key_reused for the same key with another body, and the canonical body is key-order free', async () => {
    // Proves the key binds the request: another body is refused, the same body in another key order is a replay.
    const token = m.token();
    const key = `k-${newId('ch_')}`;
    const first = await post(
      h,
      '/api/v1/charges',
      withKey(key),
      cardCharge(token, { amount: 500 }),
    );
    expect(first.statusCode).toBe(201);
    const other = await post(
      h,
      '/api/v1/charges',
      withKey(key),
      cardCharge(token, { amount: 501 }),
    );
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatchObject({
      type: 'idempotency_error',
      code: 'idempotency_key_reused',
    });
    const reordered = Object.fromEntries(
      Object.entries(cardCharge(token, { amount: 500 })).reverse(),
    );
    const replay = await post(h, '/api/v1/charges', withKey(key), reordered);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('answers 409 idempotency_key_in_use while the first request is still running', async () => {
    // Proves a twin arriving mid-flight (the first is at the acquirer) is told to wait, and the first still completes once.
    const orderId = newId('ch_');
    const body = cardCharge(m.token(), { metadata: { order: orderId } });
    let release!: () => void;
    h.acquirer.authorizeGate = new Promise((resolve) => (release = resolve));
    const calls = h.acquirer.authorizeCalls.length;
    const first = post(h, '/api/v1/charges', withKey(`k-${orderId}`), body);
    await waitFor(
      () => (h.acquirer.authorizeCalls.length > calls ? true : undefined),
      5_000,
      'the first request to reach the acquirer',
    );
    const twin = await post(h, '/api/v1/charges', withKey(`k-${orderId}`), body);
    h.acquirer.authorizeGate = null;
    release();
    expect(twin.statusCode).toBe(409);
    expect(twin.json().error).toMatchObject({
      type: 'idempotency_error',
      code: 'idempotency_key_in_use',
    });
    expect((await first).statusCode).toBe(201);
    const after = await post(h, '/api/v1/charges', withKey(`k-${orderId}`), body);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(await chargesWith(orderId)).toBe(1);
  });

  it('a twin that arrives while the first is still looking up its token: one charge, the other in use or a replay', async () => {
    // Proves that the lookups before the key is taken (vault, split recipients) let no twin through: both
    // look the token up, only one takes the key with its intent.
    const orderId = newId('ch_');
    const body = cardCharge(m.token(), { metadata: { order: orderId } });
    let release!: () => void;
    h.vault.gate = new Promise((resolve) => (release = resolve));
    const lookups = h.vault.lookups;
    const first = post(h, '/api/v1/charges', withKey(`k-${orderId}`), body);
    const twin = post(h, '/api/v1/charges', withKey(`k-${orderId}`), body);
    await waitFor(
      () => (h.vault.lookups >= lookups + 2 ? true : undefined),
      5_000,
      'both requests to reach the vault',
    );
    h.vault.gate = null;
    release();
    const answers = await Promise.all([first, twin]);
    const created = answers.filter((a) => a.statusCode === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.json().id)).size).toBe(1);
    for (const a of answers.filter((x) => x.statusCode !== 201))
      expect(a.json().error.code).toBe('idempotency_key_in_use');
    expect(await chargesWith(orderId)).toBe(1);
    expect(h.acquirer.authorizeCalls.filter((r) => r === created[0]!.json().id)).toHaveLength(1);
  });

  it('a replay answers from the key even when the vault is down, and an unknown token replays rather than refuses', async () => {
    // Proves that the token lookup, now before the key is taken, never changes what a replay answers.
    const orderId = newId('ch_');
    const token = m.token();
    const body = cardCharge(token, { metadata: { order: orderId } });
    const first = await post(h, '/api/v1/charges', withKey(`k-${orderId}`), body);
    expect(first.statusCode).toBe(201);
    h.vault.down = true;
    const whileDown = await post(h, '/api/v1/charges', withKey(`k-${orderId}`), body);
    h.vault.down = false;
    expect(whileDown.statusCode).toBe(201);
    expect(whileDown.headers['idempotent-replayed']).toBe('true');
    expect(withoutRequestId(whileDown.json())).toEqual(withoutRequestId(first.json()));
    h.vault.tokens.delete(token);
    const forgotten = await post(h, '/api/v1/charges', withKey(`k-${orderId}`), body);
    expect(forgotten.statusCode).toBe(201);
    expect(forgotten.headers['idempotent-replayed']).toBe('true');
    expect(await chargesWith(orderId)).toBe(1);
  });

  it('a card charge with a key commits twice: the key with the intent, then the outcome with its answer; a replay commits nothing; a refund commits twice', async () => {
    // Proves issue 10's merge: the claim no longer has a transaction of its own (it was three commits).
    const body = cardCharge(m.token());
    const key = withKey(`k-${newId('ch_')}`);
    const created = await transactionsDuring(h, () => post(h, '/api/v1/charges', key, body));
    expect(created.result.statusCode).toBe(201);
    expect(created.result.json().status).toBe('paid');
    expect(created.count).toEqual({ commits: 2, rollbacks: 0 });
    const replayed = await transactionsDuring(h, () => post(h, '/api/v1/charges', key, body));
    expect(replayed.result.headers['idempotent-replayed']).toBe('true');
    expect(replayed.count.commits).toBe(0);

    // A card refund has the same shape (key + refund row, acquirer, outcome + answer): two commits too.
    const refundKey = withKey(`rf-${created.result.json().id}`);
    const refunded = await transactionsDuring(h, () =>
      post(h, `/api/v1/charges/${created.result.json().id}/refund`, refundKey, {
        amount_cents: 1_000,
      }),
    );
    expect(refunded.result.json()).toMatchObject({ status: 'succeeded', amount_cents: 1_000 });
    expect(refunded.count).toEqual({ commits: 2, rollbacks: 0 });
  });

  it('20 concurrent identical requests make one charge: each answer is the charge or 409 in use', async () => {
    // Proves the key is taken atomically: concurrency cannot slip a second charge through.
    const orderId = newId('ch_');
    const body = cardCharge(m.token(), { metadata: { order: orderId } });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post(h, '/api/v1/charges', withKey(`k-${orderId}`), body)),
    );
    const ids = new Set(answers.filter((a) => a.statusCode === 201).map((a) => a.json().id));
    expect(ids.size).toBe(1);
    for (const a of answers) expect([201, 409]).toContain(a.statusCode);
    for (const a of answers.filter((x) => x.statusCode === 409))
      expect(a.json().error.code).toBe('idempotency_key_in_use');
    expect(await chargesWith(orderId)).toBe(1);
    expect(h.acquirer.authorizeCalls.filter((r) => ids.has(r))).toHaveLength(1);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
  ])('refuses a key that is %s: 422 parameter_invalid on Idempotency-Key', async (_name, key) => {
    // Proves the key's length limits (1 to 255) of api-v1 §8.
    const res = await post(h, '/api/v1/charges', withKey(key), cardCharge(m.token()));
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'Idempotency-Key' });
  });

  it('accepts a key of 255 characters', async () => {
    // Proves the upper edge of the key's length is allowed.
    expect(
      (await post(h, '/api/v1/charges', withKey('k'.repeat(255)), cardCharge(m.token())))
        .statusCode,
    ).toBe(201);
  });

  it('scopes keys by tenant, environment and path: the same key elsewhere is a new request', async () => {
    // Proves the key's scope: another tenant, the other environment or another path never replays this one.
    const key = `k-${newId('ch_')}`;
    const a = await post(h, '/api/v1/charges', withKey(key), cardCharge(m.token()));
    const other = await merchant(h);
    const b = await post(h, '/api/v1/charges', withKey(key, other.key), cardCharge(other.token()));
    const live = await merchant(h, { livemode: true });
    const c = await post(h, '/api/v1/charges', withKey(key, live.key), cardCharge(live.token()));
    for (const res of [a, b, c]) {
      expect(res.statusCode).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(new Set([a.json().id, b.json().id, c.json().id]).size).toBe(3);
    const refund = await post(h, `/api/v1/charges/${a.json().id}/refund`, withKey(key), {
      amount_cents: 100,
    });
    expect(refund.statusCode).toBe(201);
  });

  it('keeps a 4xx answer and replays it; does not keep a 5xx, so a retry with the same key goes through', async () => {
    // Proves contract §3's "5xx not kept" and that a kept 4xx is replayed as is.
    const missing = `k-${newId('ch_')}`;
    const refused = await post(h, '/api/v1/charges', withKey(missing), cardCharge('tok_unknown'));
    expect(refused.statusCode).toBe(422);
    const refusedAgain = await post(
      h,
      '/api/v1/charges',
      withKey(missing),
      cardCharge('tok_unknown'),
    );
    expect(refusedAgain.statusCode).toBe(422);
    expect(refusedAgain.headers['idempotent-replayed']).toBe('true');
    expect(refusedAgain.json().error).toEqual(refused.json().error);

    const key = `k-${newId('ch_')}`;
    const body = cardCharge(m.token());
    h.vault.down = true;
    const failed = await post(h, '/api/v1/charges', withKey(key), body);
    h.vault.down = false;
    expect(failed.statusCode).toBe(503);
    const retried = await post(h, '/api/v1/charges', withKey(key), body);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('forgets a key after 24 hours', async () => {
    // Proves the retention: a key older than a day is a new key.
    const orderId = newId('ch_');
    const body = cardCharge(m.token(), { metadata: { order: orderId } });
    const key = `k-${orderId}`;
    await post(h, '/api/v1/charges', withKey(key), body);
    const dayAndHourAgo = new Date(clock.now().getTime() - 25 * 3_600_000);
    await h.db.tx((trx) =>
      trx('idempotency_keys').where({ key }).update({ created_at: dayAndHourAgo }),
    );
    const later = await post(h, '/api/v1/charges', withKey(key), body);
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(await chargesWith(orderId)).toBe(2);
  });

  it('takes over a key left in progress by a crash before anything was saved', async () => {
    // Proves a key stuck in_progress with no resource does not block its retries forever.
    const key = `k-${newId('ch_')}`;
    const body = cardCharge(m.token());
    const old = new Date(clock.now().getTime() - 5 * 60_000);
    await h.db.tx((trx) =>
      trx('idempotency_keys').insert({
        tenant_id: m.tenantId,
        livemode: false,
        seller_scope: m.sellerId,
        method: 'POST',
        path: '/api/v1/charges',
        key,
        request_hash: requestHash(body),
        state: 'in_progress',
        lease_owner: 'a-request-that-died',
        locked_at: old,
        created_at: old,
      }),
    );
    expect((await post(h, '/api/v1/charges', withKey(key), body)).statusCode).toBe(201);
  });

  it('makes capture and refund idempotent too: a retried capture replays 200, a retried refund refunds once', async () => {
    // Proves contract §3 on capture and refund, where a second run would be a 422 or a second refund.
    const charge = (
      await post(h, '/api/v1/charges', m.key, cardCharge(m.token(), { capture_method: 'manual' }))
    ).json();
    const captureKey = withKey(`cap-${charge.id}`);
    const captured = await post(h, `/api/v1/charges/${charge.id}/capture`, captureKey);
    const recaptured = await post(h, `/api/v1/charges/${charge.id}/capture`, captureKey);
    expect([captured.statusCode, recaptured.statusCode]).toEqual([200, 200]);
    expect(recaptured.headers['idempotent-replayed']).toBe('true');
    expect(withoutRequestId(recaptured.json())).toEqual(withoutRequestId(captured.json()));
    expect((await post(h, `/api/v1/charges/${charge.id}/capture`, m.key)).statusCode).toBe(422);

    const refundKey = withKey(`rf-${charge.id}`);
    const refund = await post(h, `/api/v1/charges/${charge.id}/refund`, refundKey, {
      amount_cents: 1_000,
    });
    const again = await post(h, `/api/v1/charges/${charge.id}/refund`, refundKey, {
      amount_cents: 1_000,
    });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(refund.json().id);
    const refunds = await h.db.read((q) => q('refunds').where({ charge_id: charge.id }));
    expect(refunds).toHaveLength(1);
    const otherBody = await post(h, `/api/v1/charges/${charge.id}/refund`, refundKey, {
      amount_cents: 999,
    });
    expect(otherBody.json().error.code).toBe('idempotency_key_reused');
  });

  it('keys belong to the key holder’s tenant: another tenant with the same key and body does not see the answer', async () => {
    // Proves a replay never leaks one tenant's charge to another.
    const other = await merchant(h);
    const key = `k-${newId('ch_')}`;
    const mine = await post(h, '/api/v1/charges', withKey(key), {
      amount: 300,
      payment_method: 'PIX',
      buyer: cardCharge('tok_x').buyer,
    });
    const theirs = await post(
      h,
      '/api/v1/charges',
      withKey(key, {
        [PRINCIPAL_HEADER]: apiKey({ tenantId: other.tenantId, sellerId: other.sellerId }),
      }),
      {
        amount: 300,
        payment_method: 'PIX',
        buyer: cardCharge('tok_x').buyer,
      },
    );
    expect(theirs.json().id).not.toBe(mine.json().id);
  });
});
