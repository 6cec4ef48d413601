import { startLoop, type Loop } from '@pgw/platform-db';
import { Type } from '@sinclair/typebox';
import { readEnv } from '@pgw/platform-http';
import { purgeExpiredKeys } from '@pgw/platform-idempotency';
import type { ServiceDefinition } from '@pgw/platform-service';
import { directoryConsumer } from './consumers/directory.consumer';
import { receivablesConsumer } from './consumers/receivables.consumer';
import { anticipationMigrations } from './migrations';
import { anticipationsRoutes } from './routes/anticipations.route';
import { createAnticipationRoute } from './routes/create-anticipation.route';
import { simulateRoute } from './routes/simulate.route';

/** Keys past their 24 hours removed per round: a bound, far above one round's arrivals. */
const PURGE_BATCH_MAX = 1_000;

/** Anticipation's own variables (the database, bus and listener: platform-service's ServiceMainEnv). */
export const AnticipationEnv = Type.Object({
  /** How often expired Idempotency-Keys are removed; 0 turns it off. */
  ANTICIPATION_KEY_PURGE_INTERVAL_MS: Type.Integer({ default: 600_000 }),
});

/**
 * Anticipation: pricing resolution, simulation, execution, exposure and treasury limits, at the public
 * paths the gateway forwards (seller-scoped). It keeps its own copies of the directory and of the
 * receivables, and announces each execution with anticipation.anticipation-executed.v1, which the
 * receivables service applies (originals anticipated, new available receivables, the ledger's movement).
 */
export const anticipationService: ServiceDefinition = {
  name: 'anticipation',
  migrations: anticipationMigrations,
  async build(app, context) {
    const deps = { db: context.db, clock: context.clock };
    simulateRoute(app, deps);
    createAnticipationRoute(app, deps);
    anticipationsRoutes(app, deps);
    const purgeIntervalMs = readEnv(
      AnticipationEnv,
      context.env,
    ).ANTICIPATION_KEY_PURGE_INTERVAL_MS;
    let purge: Loop | null = null;
    const stopPurge = async () => purge?.stop();
    app.addHook('onClose', stopPurge);
    return {
      consumers: [directoryConsumer(context.clock), receivablesConsumer()],
      onStart: async () => {
        if (purgeIntervalMs === 0) return;
        // A failed round is logged and counted by the loop; the next round tries again.
        purge ??= startLoop({
          name: 'idempotency key purge',
          intervalMs: purgeIntervalMs,
          round: async () =>
            void (await purgeExpiredKeys(context.db, context.clock.now(), PURGE_BATCH_MAX)),
          log: app.log,
        });
      },
      onStop: stopPurge,
    };
  },
};
