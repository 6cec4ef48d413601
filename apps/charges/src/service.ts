import { AcquirerRouter, createAcquirer, liveModeGuard } from '@pgw/acquirer';
import { startLoop, type Loop } from '@pgw/platform-db';
import type { ServiceDefinition } from '@pgw/platform-service';
import { purgeExpiredKeys } from '@pgw/platform-idempotency';
import { chargesConfig } from './config';
import { sellerChangedConsumer } from './consumers/seller-changed.consumer';
import { PgCnab240Store } from './data/cnab240-state.repository';
import { findLiveRails } from './data/live-rails.repository';
import { chargesMigrations } from './migrations';
import type { ChargesDeps } from './operations/deps';
import { reconcileRefunds, recoverUnknownOutcomes, withLease } from './operations/jobs';
import { captureChargeRoute } from './routes/capture-charge.route';
import { chargebacksRoutes } from './routes/chargebacks.route';
import { chargeHistoryRoutes } from './routes/charge-history.route';
import { createChargeRoute } from './routes/create-charge.route';
import { getChargeRoute } from './routes/get-charge.route';
import { jobRoutes } from './routes/jobs.route';
import { listChargesRoute } from './routes/list-charges.route';
import { liveRailsRoutes } from './routes/live-rails.route';
import { pixNotificationsRoute } from './routes/pix-notifications.route';
import { refundChargeRoute } from './routes/refund-charge.route';
import { simulationRoutes } from './routes/simulations.route';

/**
 * Charges: card, Pix and boleto charges, capture, refunds, split, idempotency and chargebacks, at the
 * public paths the gateway forwards (apps/gateway/src/routes.table.ts), talking to the acquirer port and
 * to the vault's internal token lookup. See src/domain/charge-states.md.
 */
export const chargesService: ServiceDefinition = {
  name: 'charges',
  migrations: chargesMigrations,
  async build(app, context) {
    const deps: ChargesDeps = {
      db: context.db,
      clock: context.clock,
      acquirers: new AcquirerRouter({
        simulator: createAcquirer({ peers: context.peers, env: context.env }),
        // Read on every call, not cached: a change of rails reaches every replica at once.
        source: {
          liveRailsOf: async (tenantId) =>
            (await context.db.read((q) => findLiveRails(q, tenantId)))?.rails ?? null,
        },
        env: context.env,
        log: app.log,
        clock: context.clock,
        // Every replica registers boletos and runs the exchange on the same state.
        cnab240Store: (account) => new PgCnab240Store(context.db, account),
      }),
      peers: context.peers,
      config: chargesConfig(context.env),
    };
    createChargeRoute(app, deps, liveModeGuard(context.env, app.log));
    listChargesRoute(app, deps);
    getChargeRoute(app, deps);
    chargeHistoryRoutes(app, deps);
    captureChargeRoute(app, deps);
    refundChargeRoute(app, deps);
    chargebacksRoutes(app, deps);
    simulationRoutes(app, deps);
    jobRoutes(app, deps);
    liveRailsRoutes(app, deps);
    pixNotificationsRoute(app, deps);

    let recovery: Loop | null = null;
    const stopRecovery = async () => recovery?.stop();
    // The distributed main closes the app on SIGTERM: the loop's round in flight finishes first.
    app.addHook('onClose', stopRecovery);
    return {
      consumers: [sellerChangedConsumer(context.clock)],
      onStart: async () => {
        if (deps.config.recoveryIntervalMs === 0) return;
        recovery ??= startLoop({
          name: 'charges recovery',
          intervalMs: deps.config.recoveryIntervalMs,
          round: () => recoveryRound(deps),
          log: app.log,
        });
      },
      onStop: stopRecovery,
    };
  },
};

/**
 * The background recovery: every interval, charge intents and refunds whose provider answer is unknown
 * and older than CHARGES_RECOVERY_MIN_AGE_MS are resolved by reference, and idempotency keys past their
 * 24 hours are purged, each in a bounded batch under a lease shared with the jobs. A round that fails is
 * logged and counted by the loop (startLoop), and the next one tries again.
 */
async function recoveryRound(deps: ChargesDeps): Promise<void> {
  await withLease(deps.db, 'refund-reconciliation', async () => {
    const refunds = await reconcileRefunds(deps, deps.config.recoveryMinAgeMs);
    const charges = await recoverUnknownOutcomes(deps, deps.config.recoveryMinAgeMs);
    return refunds + charges;
  });
  await purgeExpiredKeys(deps.db, deps.clock.now(), deps.config.batchSizeMax);
}
