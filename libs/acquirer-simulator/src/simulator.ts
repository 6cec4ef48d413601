import type { FastifyInstance } from 'fastify';
import type { Clock } from '@pgw/platform-service';
import type { SimConfig } from './config';
import type { SimStore } from './data/sim-store';
import { HeldAnswers, installFaultModes } from './fault-mode';
import { authorizationsRoute } from './routes/authorizations.route';
import { boletosRoute } from './routes/boletos.route';
import { cardsRoute } from './routes/cards.route';
import { pixRoute } from './routes/pix.route';
import { providerModeRoute } from './routes/provider-mode.route';
import { refundsRoute } from './routes/refunds.route';

export interface SimulatorOptions {
  store: SimStore;
  clock: Clock;
  config: SimConfig;
  /**
   * Called on the scope of the /acquirer/v1 routes after the key check and the fault modes, before the
   * routes: its hooks see only requests that the simulator goes on to handle (a spec's recorder or gate).
   */
  instrument?: (scope: FastifyInstance) => void;
}

/**
 * The outside world in test mode on `app`: the acquirer (card store, authorization, capture, cancel,
 * refund), a Pix PSP and a boleto bank, with the fault modes of contract §5. Its /acquirer/v1 routes
 * stand for a third party's API and are not behind our principal (the caller lists SIM_PATHS among its
 * public routes; an optional shared key guards them); the operator route of the fault mode is, like every
 * /admin/v1 route. Answers held by the timeout mode are released when the app closes.
 */
export async function registerSimulator(
  app: FastifyInstance,
  options: SimulatorOptions,
): Promise<HeldAnswers> {
  const { store, clock, config } = options;
  const held = new HeldAnswers();
  app.addHook('preClose', async () => held.releaseAll());
  providerModeRoute(app, store);
  await app.register(async (scope) => {
    installFaultModes(scope, store, config, held);
    options.instrument?.(scope);
    cardsRoute(scope, store, clock);
    authorizationsRoute(scope, store, clock);
    refundsRoute(scope, store, clock);
    pixRoute(scope, store, clock);
    boletosRoute(scope, store, clock);
  });
  return held;
}
