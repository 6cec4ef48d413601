import { SIM_PATHS } from '@pgw/acquirer';
import type { ServiceDefinition } from '@pgw/platform-service';
import { simConfig } from './config';
import { HeldAnswers, installFaultModes } from './fault-mode';
import { simMigrations } from './migrations';
import { authorizationsRoute } from './routes/authorizations.route';
import { boletosRoute } from './routes/boletos.route';
import { cardsRoute } from './routes/cards.route';
import { pixRoute } from './routes/pix.route';
import { providerModeRoute } from './routes/provider-mode.route';
import { refundsRoute } from './routes/refunds.route';

/**
 * The outside world in test mode: the acquirer (card store, authorization, capture, cancel, refund), a
 * Pix PSP and a boleto bank, with the fault modes of contract §5. Its /acquirer/v1 routes stand for a
 * third party's API, so they are not behind our principal (an optional shared key guards them); the
 * operator route that sets the fault mode is, like every /admin/v1 route.
 */
export const acquirerSimService: ServiceDefinition = {
  name: 'acquirer-sim',
  migrations: simMigrations,
  publicRoutes: Object.values(SIM_PATHS),
  async build(app, context) {
    const config = simConfig(context.env);
    const held = new HeldAnswers();
    app.addHook('preClose', async () => held.releaseAll());
    providerModeRoute(app, context.db);
    await app.register(async (scope) => {
      installFaultModes(scope, context.db, config, held);
      cardsRoute(scope, context.db, context.clock);
      authorizationsRoute(scope, context.db, context.clock);
      refundsRoute(scope, context.db, context.clock);
      pixRoute(scope, context.db, context.clock);
      boletosRoute(scope, context.db, context.clock);
    });
    return {};
  },
};
