import { addDays } from '@pgw/domain';
import { createPgliteKnex } from '@pgw/platform-db';
import { ManualClock } from '@pgw/platform-service';
import { waitFor } from '@pgw/testing';
import {
  asOperator,
  buyer,
  cardCharge,
  get,
  merchant,
  outboxEvents,
  post,
  runJob,
  setProviderMode,
  startCharges,
  type Harness,
  type Merchant,
} from '../testing/harness';

const knex = createPgliteKnex(null);
const clock = new ManualClock(new Date());
let h: Harness;
let m: Merchant;

beforeAll(async () => {
  h = await startCharges(knex, { clock });
  m = await merchant(h);
}, 60_000);

afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

// The service's clock and the test's are one: a run across midnight UTC cannot see two different days.
const today = () => clock.today();
const charge = async (id: string) => (await get(h, `/api/v1/charges/${id}`, m.key)).json();
// ACQUIRER_TIMEOUT_MS is 200 in the harness; reconciliation picks intents by age on the service's clock.
const pastDeadline = async () => clock.set(new Date(clock.now().getTime() + 250));

describe('recovery of an intent whose outcome was not saved', () => {
  it('a crash between the acquirer call and the outcome commit is recovered without a second authorization', async () => {
    // Proves the intent/outcome split: the authorization happened, its save failed, and recovery finds it by reference.
    // The "crash": a trigger makes the outcome's transaction fail after the acquirer has authorized.
    await h.db.tx(async (trx) => {
      await trx.raw(`create or replace function crash_on_outcome() returns trigger language plpgsql as $$
        begin
          if new.outcome_known and not old.outcome_known then raise exception 'simulated crash before the outcome commit'; end if;
          return new;
        end $$`);
      await trx.raw(
        'create trigger crash_on_outcome before update on charges for each row execute function crash_on_outcome()',
      );
    });
    const key = { ...m.key, 'idempotency-key': 'crash-1' };
    const body = cardCharge(m.token(), { metadata: { order: 'crash-1' } });
    const crashed = await post(h, '/api/v1/charges', key, body);
    await h.db.tx((trx) => trx.raw('drop trigger crash_on_outcome on charges'));
    expect(crashed.statusCode).toBe(500);

    const [intent] = await h.db.read((q) =>
      q('charges').whereRaw(`metadata_json like '%crash-1%'`),
    );
    expect(intent).toMatchObject({ status: 'pending', outcome_known: false, announced: false });
    expect(h.acquirer.authorizations.get(intent.id)?.status).toBe('captured'); // the acquirer did act
    expect(await outboxEvents(h, intent.id)).toEqual([]); // and nothing was announced
    // The key stays taken: a retry is told to wait rather than charging again.
    expect((await post(h, '/api/v1/charges', key, body)).json().error.code).toBe(
      'idempotency_key_in_use',
    );

    await pastDeadline();
    expect((await runJob(h, 'refund-reconciliation')).processed).toBeGreaterThanOrEqual(1);

    expect(await charge(intent.id)).toMatchObject({
      status: 'paid',
      captured: true,
      acquirer_transaction_id: h.acquirer.authorizations.get(intent.id)!.transaction_id,
    });
    expect(h.acquirer.authorizeCalls.filter((r) => r === intent.id)).toHaveLength(1);
    expect([...h.acquirer.authorizations.keys()].filter((r) => r === intent.id)).toHaveLength(1);
    expect((await outboxEvents(h, intent.id)).map((e) => e.type)).toEqual([
      'charges.charge-created.v1',
      'charges.charge-paid.v2',
    ]);
    // The key now answers what the request would have: 201 and the paid charge.
    const replay = await post(h, '/api/v1/charges', key, body);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toMatchObject({ id: intent.id, status: 'paid' });
    // A second run finds nothing left to do.
    expect((await runJob(h, 'refund-reconciliation')).processed).toBe(0);
  });

  it('the recovery settles an intent while the acquirer holds the answer to the request: the request then answers that outcome, announced once', async () => {
    // Proves the request's guarded write: it decides from the intent it inserted, finds the row settled by
    // the recovery in the meantime, and leaves it as it is instead of settling it a second time.
    const slow = await startCharges(knex, {
      schema: 'charges_settle_race',
      clock,
      env: { ACQUIRER_TIMEOUT_MS: '10000', CHARGES_RECOVERY_MIN_AGE_MS: '10000' },
    });
    try {
      const sm = await merchant(slow);
      let release!: () => void;
      slow.acquirer.authorizeAnswerGate = new Promise((resolve) => (release = resolve));
      const key = { ...sm.key, 'idempotency-key': 'settle-race' };
      const body = cardCharge(sm.token());
      const request = post(slow, '/api/v1/charges', key, body);
      await waitFor(
        () => (slow.acquirer.authorizations.size > 0 ? true : undefined),
        5_000,
        'the authorization made, its answer held',
      );
      clock.set(new Date(clock.now().getTime() + 10_050));
      expect((await runJob(slow, 'refund-reconciliation')).processed).toBe(1);
      slow.acquirer.authorizeAnswerGate = null;
      release();

      const res = await request;
      expect([res.statusCode, res.json().status]).toEqual([201, 'paid']);
      const id = res.json().id as string;
      expect((await outboxEvents(slow, id)).map((e) => e.type)).toEqual([
        'charges.charge-created.v1',
        'charges.charge-paid.v2',
      ]);
      expect(slow.acquirer.authorizeCalls).toEqual([id]);
      const replay = await post(slow, '/api/v1/charges', key, body);
      expect([replay.statusCode, replay.json().id, replay.json().status]).toEqual([
        201,
        id,
        'paid',
      ]);
    } finally {
      await slow.stop();
    }
  });

  it('an intent that never reached the acquirer is sent again with the same reference, once', async () => {
    // Proves the not-found branch: no authorization under the reference, so recovery authorizes it, once.
    await setProviderMode(h, 'timeout');
    const c = (
      await post(h, '/api/v1/charges', m.key, cardCharge(m.token(), { capture_method: 'manual' }))
    ).json();
    await setProviderMode(h, 'normal');
    expect(c.status).toBe('pending');
    h.acquirer.authorizations.delete(c.id); // the request was lost on the way: the acquirer has nothing
    await pastDeadline();
    await runJob(h, 'refund-reconciliation');
    expect((await charge(c.id)).status).toBe('authorized');
    expect([...h.acquirer.authorizations.keys()].filter((r) => r === c.id)).toHaveLength(1);
    // A second run does not authorize again.
    await runJob(h, 'refund-reconciliation');
    expect(h.acquirer.authorizeCalls.filter((r) => r === c.id)).toHaveLength(2); // the lost one, and the resend
  });

  it('leaves an intent pending while the provider still cannot answer, and settles it on a later run', async () => {
    // Proves recovery never fails a charge because the provider is down now.
    await setProviderMode(h, 'timeout');
    const c = (await post(h, '/api/v1/charges', m.key, cardCharge(m.token()))).json();
    await setProviderMode(h, 'unavailable');
    await pastDeadline();
    await runJob(h, 'refund-reconciliation');
    expect((await charge(c.id)).status).toBe('pending');
    await setProviderMode(h, 'normal');
    await runJob(h, 'refund-reconciliation');
    expect((await charge(c.id)).status).toBe('paid');
  });

  it('the background recovery resolves old intents on its own', async () => {
    // Proves the periodic loop: with no job run, an intent older than the minimum age is settled.
    const loop = await startCharges(knex, {
      schema: 'charges_loop',
      env: { CHARGES_RECOVERY_INTERVAL_MS: '100', CHARGES_RECOVERY_MIN_AGE_MS: '300' },
    });
    try {
      const lm = await merchant(loop);
      await setProviderMode(loop, 'timeout');
      const c = (await post(loop, '/api/v1/charges', lm.key, cardCharge(lm.token()))).json();
      expect(c.status).toBe('pending');
      await setProviderMode(loop, 'normal');
      await waitFor(
        async () =>
          (await get(loop, `/api/v1/charges/${c.id}`, lm.key)).json().status === 'paid'
            ? true
            : undefined,
        10_000,
        'the loop to settle the charge',
      );
      expect(loop.acquirer.authorizeCalls.filter((r) => r === c.id)).toHaveLength(1);
    } finally {
      await loop.stop();
    }
  });
});

describe('job authorization-expiry', () => {
  it('cancels an authorization not captured within 7 days, voids it at the acquirer, and writes charge-canceled', async () => {
    // Proves contract §4's 7-day rule at its edge: 6 days later nothing happens, 7 days later it is canceled.
    const c = (
      await post(h, '/api/v1/charges', m.key, cardCharge(m.token(), { capture_method: 'manual' }))
    ).json();
    expect((await runJob(h, 'authorization-expiry', addDays(today(), 6))).processed).toBe(0);
    expect((await charge(c.id)).status).toBe('authorized');
    const run = await runJob(h, 'authorization-expiry', addDays(today(), 7));
    expect(run).toMatchObject({ job: 'authorization-expiry', as_of_date: addDays(today(), 7) });
    expect(run.processed).toBeGreaterThanOrEqual(1); // this one, and any other authorization left by earlier tests
    expect((await charge(c.id)).status).toBe('canceled');
    expect(h.acquirer.authorizations.get(c.id)?.status).toBe('canceled');
    expect((await outboxEvents(h, c.id)).map((e) => e.type).at(-1)).toBe(
      'charges.charge-canceled.v1',
    );
    expect((await post(h, `/api/v1/charges/${c.id}/capture`, m.key)).json().error.code).toBe(
      'charge_not_capturable',
    );
  });

  it('marks paid, not canceled, an authorization the acquirer had captured after all', async () => {
    // Proves a capture whose answer was lost is found by the expiry job instead of being voided.
    const c = (
      await post(h, '/api/v1/charges', m.key, cardCharge(m.token(), { capture_method: 'manual' }))
    ).json();
    await setProviderMode(h, 'timeout');
    expect((await post(h, `/api/v1/charges/${c.id}/capture`, m.key)).statusCode).toBe(502);
    await setProviderMode(h, 'normal');
    expect(h.acquirer.authorizations.get(c.id)?.status).toBe('captured');
    await runJob(h, 'authorization-expiry', addDays(today(), 8));
    expect(await charge(c.id)).toMatchObject({ status: 'paid', captured: true });
  });

  it('a capture that races the job answers from the final state: 200 with the paid charge, not 422', async () => {
    // Proves the race: the acquirer captured, the job found it captured and marked the charge paid before
    // the capture's own transaction, and the capture still answers as the capture it was. Its own
    // charges, with an acquirer deadline long enough for the job to run while the capture's answer is held.
    const race = await startCharges(knex, {
      schema: 'charges_race',
      env: { ACQUIRER_TIMEOUT_MS: '10000', CHARGES_RECOVERY_MIN_AGE_MS: '10000' },
    });
    let release: () => void = () => undefined;
    try {
      const rm = await merchant(race);
      const c = (
        await post(
          race,
          '/api/v1/charges',
          rm.key,
          cardCharge(rm.token(), { capture_method: 'manual' }),
        )
      ).json();
      race.acquirer.captureGate = new Promise<void>((resolve) => (release = resolve));
      const capture = post(race, `/api/v1/charges/${c.id}/capture`, rm.key);
      await waitFor(
        async () =>
          race.acquirer.authorizations.get(c.id)?.status === 'captured' ? true : undefined,
        5_000,
        'the acquirer to capture',
      );
      expect((await runJob(race, 'authorization-expiry', addDays(today(), 8))).processed).toBe(1);
      expect((await get(race, `/api/v1/charges/${c.id}`, rm.key)).json()).toMatchObject({
        status: 'paid',
        captured: true,
      });
      release();
      const answer = await capture;
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toMatchObject({ id: c.id, status: 'paid', captured: true });
      expect(
        (await outboxEvents(race, c.id))
          .map((e) => e.type)
          .filter((t) => t === 'charges.charge-paid.v2'),
      ).toHaveLength(1);
    } finally {
      release();
      await race.stop();
    }
  });
});

describe('job pix-expiry', () => {
  it('cancels a pending Pix past its expiry at the PSP and writes charge-canceled; paying it then is refused', async () => {
    // Proves contract §4: an expired Pix becomes canceled, and the PSP will not take its payment.
    const c = (
      await post(h, '/api/v1/charges', m.key, {
        amount: 500,
        payment_method: 'PIX',
        pix: { expires_in: 60 },
        buyer: buyer(),
      })
    ).json();
    expect((await runJob(h, 'pix-expiry')).processed).toBe(0); // not expired yet
    const run = await runJob(h, 'pix-expiry', addDays(today(), 1));
    expect(run.processed).toBe(1);
    expect((await charge(c.id)).status).toBe('canceled');
    expect(h.acquirer.pix.get(c.id)?.status).toBe('expired');
    expect((await outboxEvents(h, c.id)).map((e) => e.type)).toEqual([
      'charges.charge-created.v1',
      'charges.charge-canceled.v1',
    ]);
    const pay = await post(h, `/admin/v1/simulations/charges/${c.id}/pay`, asOperator());
    expect(pay.statusCode).toBe(422);
  });

  it('a Pix paid before the job ran is paid, not canceled', async () => {
    // Proves the job does not cancel what the PSP reports paid.
    const c = (
      await post(h, '/api/v1/charges', m.key, {
        amount: 500,
        payment_method: 'PIX',
        pix: { expires_in: 60 },
        buyer: buyer(),
      })
    ).json();
    const pix = h.acquirer.pix.get(c.id)!;
    Object.assign(pix, { status: 'paid', paid_at: clock.now().toISOString() }); // paid at the PSP, confirmation not seen
    await runJob(h, 'pix-expiry', addDays(today(), 1));
    expect((await charge(c.id)).status).toBe('paid');
  });
});

describe('jobs page past the rows they cannot settle', () => {
  it('authorization-expiry and pix-expiry reach a due charge behind more than a batch of charges the provider cannot settle', async () => {
    // Proves keyset paging within a run: 501 older due charges that the acquirer does not know (its void and
    // its expiry answer 404, so each stays as it is) fill the first batch of 500, and the due charge behind
    // them is settled all the same, in the same run. Its own charges: the 1,002 rows stay out of the others' runs.
    const paging = await startCharges(knex, { schema: 'charges_paging' });
    try {
      const pm = await merchant(paging);
      const card = (
        await post(
          paging,
          '/api/v1/charges',
          pm.key,
          cardCharge(pm.token(), { capture_method: 'manual' }),
        )
      ).json();
      const pix = (
        await post(paging, '/api/v1/charges', pm.key, {
          amount: 500,
          payment_method: 'PIX',
          pix: { expires_in: 60 },
          buyer: buyer(),
        })
      ).json();
      const rowOf = async (id: string): Promise<Record<string, unknown>> =>
        (await paging.db.read((q) => q('charges').where({ id })))[0];
      const [cardRow, pixRow] = [await rowOf(card.id), await rowOf(pix.id)];
      const before = (at: unknown) => new Date((at as Date).getTime() - 60_000);
      const stuck = Array.from({ length: 501 }, (_, i) => [
        {
          ...cardRow,
          id: `ch_stuckcard${i}`,
          acquirer_transaction_id: `txn_unknown_${i}`,
          authorized_at: before(cardRow.authorized_at),
          created_at: before(cardRow.created_at),
        },
        {
          ...pixRow,
          id: `ch_stuckpix${i}`,
          pix_expires_at: before(pixRow.pix_expires_at),
          created_at: before(pixRow.created_at),
        },
      ]).flat();
      await paging.db.tx(async (trx) => {
        for (let i = 0; i < stuck.length; i += 100)
          await trx('charges').insert(stuck.slice(i, i + 100));
      });

      expect((await runJob(paging, 'authorization-expiry', addDays(today(), 8))).processed).toBe(1);
      expect((await get(paging, `/api/v1/charges/${card.id}`, pm.key)).json().status).toBe(
        'canceled',
      );
      expect(paging.acquirer.calls.filter((c) => c.endsWith('/cancel'))).toHaveLength(502); // each row once
      expect((await runJob(paging, 'pix-expiry', addDays(today(), 1))).processed).toBe(1);
      expect((await get(paging, `/api/v1/charges/${pix.id}`, pm.key)).json().status).toBe(
        'canceled',
      );
      expect(paging.acquirer.calls.filter((c) => c.endsWith('/expire'))).toHaveLength(502);
      // The stuck ones are still due: the next run tries them again.
      const [left] = await paging.db.read((q) =>
        q('charges')
          .whereIn('status', ['authorized', 'pending'])
          .whereLike('id', 'ch_stuck%')
          .count({ n: '*' }),
      );
      expect(Number(left?.n)).toBe(1002);
    } finally {
      await paging.stop();
    }
  }, 60_000);
});
