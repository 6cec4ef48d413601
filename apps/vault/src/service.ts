import {
  AcquirerRouter,
  createAcquirer,
  liveModeGuard,
  railRecordOf,
  SIMULATOR_RAIL,
} from '@pgw/acquirer';
import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import type { ServiceDefinition } from '@pgw/platform-service';
import { vaultKeysForAllInOne, vaultKeysFromEnv, type VaultKeys } from './config';
import { liveRailsOf } from './live-rails.client';
import { vaultMigrations } from './migrations';
import { getTokenInternalRoute } from './routes/get-token.internal.route';
import { tokenizeRoute, type TokenizeDeps } from './routes/tokenize.route';

export interface VaultServiceOptions {
  /**
   * `environment`: keys only from the environment, or the service refuses to start (distributed mode).
   * `environment-or-local`: the all-in-one's choice: the environment's keys if set, else keys generated
   * once and kept in DATA_DIR's database (see config.ts).
   */
  keys: 'environment' | 'environment-or-local';
}

/** The tokenization vault: POST /api/v1/payment-methods/tokenize and the internal token lookup for charges. */
export function createVaultService(options: VaultServiceOptions): ServiceDefinition {
  return {
    name: 'vault',
    migrations: vaultMigrations,
    async build(app, context) {
      const keys: VaultKeys =
        options.keys === 'environment'
          ? vaultKeysFromEnv(context.env)
          : await vaultKeysForAllInOne(context.env, context.db);
      if (keys.source === 'local')
        app.log.warn(
          'vault keys generated locally and kept in the embedded database: test mode only',
        );
      const router = new AcquirerRouter({
        simulator: createAcquirer({ peers: context.peers, env: context.env }),
        env: context.env,
        log: app.log,
        clock: context.clock,
      });
      // Contract §6: said at start; refuses live tokenize where DEPLOYMENT_ENV=production and the tenant has no card rail.
      const liveGuard = liveModeGuard(context.env, app.log);
      const acquirerFor: TokenizeDeps['acquirerFor'] = async (request, principal) => {
        if (!principal.livemode)
          return { acquirer: router.simulator, liveRail: false, rail: SIMULATOR_RAIL };
        const header = request.headers[PRINCIPAL_HEADER];
        const rails = await liveRailsOf(context.peers, {
          principalHeader: typeof header === 'string' ? header : '',
          requestId: request.id,
        });
        return {
          acquirer: router.forRails(true, rails),
          liveRail: rails.card !== null,
          rail: railRecordOf(rails.card),
        };
      };
      tokenizeRoute(app, { db: context.db, clock: context.clock, keys, acquirerFor, liveGuard });
      getTokenInternalRoute(app, context.db);
      return {};
    },
  };
}

/** The vault as the all-in-one runs it. */
export const vaultService: ServiceDefinition = createVaultService({ keys: 'environment-or-local' });
