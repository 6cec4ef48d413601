import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '@pgw/platform-db';
import { envInt } from '@pgw/platform-http';
import { purgeExpiredKeys } from '@pgw/platform-idempotency';
import type { Clock, ServiceDefinition } from '@pgw/platform-service';
import { directoryConsumer } from './consumers/directory.consumer';
import { receivablesConsumer } from './consumers/receivables.consumer';
import { anticipationMigrations } from './migrations';
import { anticipationsRoutes } from './routes/anticipations.route';
import { createAnticipationRoute } from './routes/create-anticipation.route';
import { simulateRoute } from './routes/simulate.route';

/** Keys past their 24 hours removed per round: a bound, far above one round's arrivals. */
const PURGE_BATCH_MAX = 1_000;

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
    // ANTICIPATION_KEY_PURGE_INTERVAL_MS: how often expired Idempotency-Keys are removed; 0 turns it off.
    const purge = new PurgeLoop(context.db, context.clock, envInt(context.env, 'ANTICIPATION_KEY_PURGE_INTERVAL_MS', 600_000), app.log);
    app.addHook('onClose', async () => purge.stop());
    return {
      consumers: [directoryConsumer(), receivablesConsumer()],
      onStart: async () => purge.start(),
      onStop: async () => purge.stop(),
    };
  },
};

class PurgeLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    if (this.intervalMs > 0) this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = purgeExpiredKeys(this.db, this.clock.now(), PURGE_BATCH_MAX)
        .then(
          () => undefined,
          // The next round tries again; a failed round is logged, never silently dropped.
          (error: unknown) => this.log.warn({ err: error }, 'idempotency key purge failed'),
        )
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.intervalMs);
    this.timer.unref();
  }
}
