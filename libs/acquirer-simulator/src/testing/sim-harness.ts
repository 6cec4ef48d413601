import { SimAcquirer, type AcquirerResult } from '@pgw/acquirer';
import { TestPrincipals, type App } from '@pgw/platform-http';
import { InjectPeers, ManualClock } from '@pgw/platform-service';
import { TestAcquirerSim } from './test-acquirer-sim';

/** How long the timeout mode holds an answer in the route specs: beyond the client's deadline below. */
export const TIMEOUT_DELAY_MS = 1_500;
/** The route specs' client deadline. */
export const CLIENT_TIMEOUT_MS = 1_000;

/**
 * The simulator's routes in memory for the specs beside them (routes/*.route.spec.ts), called as the
 * services call them: through @pgw/acquirer's SimAcquirer over in-process peers, the operator's route with
 * a signed principal. Call at a spec's top level; the app is built before its tests and closed after them.
 */
export function simHarness() {
  const principals = new TestPrincipals();
  const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
  const sim = new TestAcquirerSim({ clock, timeoutDelayMs: TIMEOUT_DELAY_MS });
  const peers = new InjectPeers();
  const acquirer = new SimAcquirer({ peers, timeoutMs: CLIENT_TIMEOUT_MS });
  let built: App | undefined;
  let seq = 0;

  beforeAll(async () => {
    built = await sim.build(principals);
    peers.register('acquirer-sim', built);
  });
  afterAll(async () => {
    sim.releaseHeld();
    await built?.close();
  });

  const app = (): App => {
    if (built === undefined) throw new Error('simHarness: used before its beforeAll');
    return built;
  };
  /** A reference never used before in this process. */
  const ref = (what: string) => `${what}_${++seq}_${Date.now()}`;
  /** The value of an answer that must be ok. */
  const value = <T>(result: AcquirerResult<T>): T => {
    if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result)}`);
    return result.value;
  };
  /** A card of `number` in the card store: its card_ref. */
  const card = async (number: string): Promise<string> =>
    value(
      await acquirer.storeCard({
        reference: ref('card'),
        number,
        expMonth: 12,
        expYear: 2030,
        holderName: 'ANA SILVA',
      }),
    ).cardRef;
  const operator = () =>
    principals.header({ kind: 'operator', requestId: 'req_x', expiresAtMs: Date.now() + 60_000 });
  /** Sets the fault mode through the operator's route, as the gateway forwards it. */
  const setMode = async (mode: 'normal' | 'unavailable' | 'timeout'): Promise<void> => {
    const res = await app().inject({
      method: 'POST',
      url: '/admin/v1/simulations/provider',
      headers: { 'x-gateway-principal': operator() },
      payload: { mode },
    });
    if (res.statusCode !== 200)
      throw new Error(`provider mode answered ${res.statusCode}: ${res.body}`);
  };

  return { sim, clock, principals, acquirer, app, ref, value, card, operator, setMode };
}
