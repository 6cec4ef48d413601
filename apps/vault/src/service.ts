import { createAcquirer, liveModeGuard } from '@pgw/acquirer';
import type { ServiceDefinition } from '@pgw/platform-service';
import { vaultKeysForAllInOne, vaultKeysFromEnv, type VaultKeys } from './config';
import { vaultMigrations } from './migrations';
import { getTokenInternalRoute } from './routes/get-token.internal.route';
import { tokenizeRoute } from './routes/tokenize.route';

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
      const keys: VaultKeys = options.keys === 'environment' ? vaultKeysFromEnv(context.env) : await vaultKeysForAllInOne(context.env, context.db);
      if (keys.source === 'local') app.log.warn('vault keys generated locally and kept in the embedded database: test mode only');
      const acquirer = createAcquirer({ peers: context.peers, env: context.env });
      // Contract §6: said at start; refuses live tokenize where DEPLOYMENT_ENV=production.
      const liveGuard = liveModeGuard(context.env, app.log);
      tokenizeRoute(app, { db: context.db, clock: context.clock, keys, acquirer, liveGuard });
      getTokenInternalRoute(app, context.db);
      return {};
    },
  };
}

/** The vault as the all-in-one runs it. */
export const vaultService: ServiceDefinition = createVaultService({ keys: 'environment-or-local' });
