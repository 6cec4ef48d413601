import { addDays } from '@pgw/domain';
import { createPgliteKnex } from '@pgw/platform-db';
import { ManualClock } from '@pgw/platform-service';
import type { ChargeStatus } from '@pgw/charges-domain/charge';
import {
  asOperator,
  buyer,
  cardCharge,
  get,
  merchant,
  post,
  runJob,
  setProviderMode,
  startCharges,
  type Harness,
  type Merchant,
} from './harness';

export type Charge = {
  id: string;
  status: ChargeStatus;
  amount_cents: number;
  [k: string]: unknown;
};

/**
 * Charges on PGlite with one merchant, for the specs of the routes a charge goes through after it is
 * made (capture, refund, get, chargebacks, jobs): call it at a spec's top level; it starts the service
 * before the spec's tests, stops it after, and puts the simulated acquirer back to normal after each test.
 */
export function chargeLifecycle() {
  const knex = createPgliteKnex(null);
  // The service's clock and the test's are one: a run across midnight UTC cannot see two different days.
  const clock = new ManualClock(new Date());
  let harness: Harness | undefined;
  let owner: Merchant | undefined;

  beforeAll(async () => {
    harness = await startCharges(knex, { clock });
    owner = await merchant(harness);
  });
  afterAll(async () => {
    await harness?.stop();
    await knex.destroy();
  });
  afterEach(async () => {
    await setProviderMode(life.h, 'normal');
  });

  const create = async (body: Record<string, unknown>): Promise<Charge> => {
    const res = await post(life.h, '/api/v1/charges', life.m.key, body);
    if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}: ${res.body}`);
    return res.json();
  };
  const refund = (id: string, body?: unknown) =>
    post(life.h, `/api/v1/charges/${id}/refund`, life.m.key, body);
  const capture = (id: string) => post(life.h, `/api/v1/charges/${id}/capture`, life.m.key);
  const charge = async (id: string): Promise<Charge> =>
    (await get(life.h, `/api/v1/charges/${id}`, life.m.key)).json();

  /** A fresh charge in `status`, reached through the API, the simulations and the jobs. */
  const chargeIn = async (status: ChargeStatus): Promise<Charge> => {
    const m = life.m;
    switch (status) {
      case 'pending':
        return create({ amount: 10_000, payment_method: 'PIX', buyer: buyer() });
      case 'authorized':
        return create(cardCharge(m.token(), { capture_method: 'manual' }));
      case 'paid':
        return create(cardCharge(m.token()));
      case 'refused':
        return create(cardCharge(m.token('4000000000000002')));
      case 'failed':
        return create(cardCharge(m.token('4000000000000119')));
      case 'canceled': {
        const c = await chargeIn('authorized');
        await runJob(life.h, 'authorization-expiry', addDays(clock.today(), 7));
        return charge(c.id);
      }
      case 'refunded':
      case 'partially_refunded': {
        const c = await chargeIn('paid');
        expect(
          (await refund(c.id, status === 'refunded' ? {} : { amount_cents: 100 })).statusCode,
        ).toBe(201);
        return charge(c.id);
      }
      case 'chargeback': {
        const c = await chargeIn('paid');
        expect(
          (
            await post(life.h, '/admin/v1/simulations/chargebacks', asOperator(), {
              charge_id: c.id,
            })
          ).statusCode,
        ).toBe(201);
        return charge(c.id);
      }
    }
  };

  const life = {
    clock,
    get h(): Harness {
      if (harness === undefined) throw new Error('chargeLifecycle: used before its beforeAll');
      return harness;
    },
    get m(): Merchant {
      if (owner === undefined) throw new Error('chargeLifecycle: used before its beforeAll');
      return owner;
    },
    today: () => clock.today(),
    /** Moves the clock past the acquirer's deadline: reconciliation picks intents by age on the service's clock. */
    pastDeadline: () => clock.set(new Date(clock.now().getTime() + 250)),
    create,
    refund,
    capture,
    charge,
    chargeIn,
  };
  return life;
}
