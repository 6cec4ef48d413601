import type { FastifyBaseLogger } from 'fastify';
import { startLoop, type Db, type Loop } from '@pgw/platform-db';
import {
  counter,
  histogram,
  WEBHOOK_DELIVERIES,
  WEBHOOK_DELIVERY_ATTEMPTS,
  WEBHOOK_DELIVERY_DURATION,
} from '@pgw/platform-metrics';
import type { Clock } from '@pgw/platform-service';
import { signWebhook } from '@pgw/webhook-signature';
import type { WebhooksConfig } from '../config';
import {
  claimDueDeliveries,
  recordAttempt,
  releaseClaims,
  type ClaimedDelivery,
} from '../data/deliveries.repository';
import { afterAttempt } from '@pgw/webhooks-domain/backoff';
import { isSuccess, postWebhook, type PostOutcome } from './post-webhook';

const attemptsMetric = counter(WEBHOOK_DELIVERY_ATTEMPTS);
const deliveriesMetric = counter(WEBHOOK_DELIVERIES);
const durationMetric = histogram(WEBHOOK_DELIVERY_DURATION);

/** Each attempt by endpoint and reason, and each delivery that ended: delivered, or given up after its window. */
function recordAttemptMetrics(
  endpoint: string,
  outcome: PostOutcome,
  succeeded: boolean,
  givenUp: boolean,
): void {
  const result = succeeded ? 'success' : 'failure';
  attemptsMetric.add(1, { outcome: result, reason: outcome.reason, endpoint });
  durationMetric.record(outcome.latencyMs / 1000, { outcome: result });
  if (succeeded || givenUp)
    deliveriesMetric.add(1, {
      outcome: succeeded ? 'delivered' : 'given_up',
      reason: outcome.reason,
    });
}

// Extra time a claimed delivery stays leased beyond the attempt's timeout, for recording the outcome.
// A replica that dies mid-attempt holds its deliveries this long at most; then another takes them.
const LEASE_MARGIN_MS = 30_000;

export interface DeliveryWorkerOptions {
  db: Db;
  clock: Clock;
  config: WebhooksConfig;
  log: FastifyBaseLogger;
  random?: () => number;
}

/**
 * Sends due deliveries: claims at most `concurrencyMax` at a time (leased rows, so replicas share the
 * work), POSTs each signed, logs the attempt and schedules the next one. All its state is in the
 * deliveries table: it keeps nothing a restart or another replica would need. It polls, and is woken at
 * once when this process writes new deliveries, finishes an attempt or redelivers.
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopController = new AbortController();
  private loop: Loop | null = null;
  private stopped = true;

  constructor(private readonly options: DeliveryWorkerOptions) {}

  start(): void {
    if (this.loop !== null) return;
    this.stopped = false;
    // A round that fails (the deliveries could not be claimed) is logged and counted by the loop; the next poll tries again.
    this.loop = startLoop({
      name: 'webhook delivery',
      intervalMs: this.options.config.pollIntervalMs,
      runAtStart: true,
      round: () => this.claimAndSend(),
      log: this.options.log,
    });
  }

  /** Looks for due deliveries now rather than at the next poll (or, during a round, right after it). */
  wake(): void {
    if (!this.stopped) this.loop?.kick();
  }

  /** Stops claiming, aborts the attempts in flight (each is logged and retried later) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopController.abort();
    await this.loop?.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  private async claimAndSend(): Promise<void> {
    const { db, clock, config, log } = this.options;
    const free = config.concurrencyMax - this.inFlight.size;
    if (free <= 0) return;
    const now = clock.now();
    const claimed: ClaimedDelivery[] = await claimDueDeliveries(
      db,
      now,
      free,
      new Date(now.getTime() + config.attemptTimeoutMs + LEASE_MARGIN_MS),
    );
    if (this.stopped) {
      // Claimed while stopping: hand them back untried rather than log attempts that never happened.
      await releaseClaims(
        db,
        claimed.map((c) => c.id),
        clock.now(),
      ).catch((err: unknown) => log.error({ err }, 'claims not released; their lease expires'));
      return;
    }
    for (const delivery of claimed) {
      const attempt: Promise<void> = this.attempt(delivery)
        .catch((err: unknown) =>
          log.error(
            { err, deliveryId: delivery.id },
            'webhook attempt not recorded; retried when its lease expires',
          ),
        )
        .finally(() => {
          this.inFlight.delete(attempt);
          this.wake();
        });
      this.inFlight.add(attempt);
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { db, clock, config } = this.options;
    const startedAt = clock.now();
    // Signed at each attempt: receivers refuse a t older than 5 minutes, and retries go on for a day.
    const signature = signWebhook(
      delivery.secrets,
      delivery.body,
      Math.floor(startedAt.getTime() / 1000),
    );
    const outcome = await postWebhook({
      url: delivery.url,
      body: delivery.body,
      signature,
      timeoutMs: config.attemptTimeoutMs,
      stopSignal: this.stopController.signal,
      allowPrivateTargets: config.allowPrivateTargets,
    });
    const now = clock.now();
    const succeeded = isSuccess(outcome.statusCode);
    const next = afterAttempt(
      { succeeded, now, giveUpAt: delivery.giveUpAt, failedInARow: delivery.roundAttempts },
      { baseMs: config.retryBaseMs, capMs: config.retryCapMs },
      this.options.random,
    );
    const error = outcome.error ?? (succeeded ? null : `http status ${outcome.statusCode}`);
    await db.tx((trx) =>
      recordAttempt(
        trx,
        {
          deliveryId: delivery.id,
          number: delivery.attemptNumber,
          startedAt,
          latencyMs: outcome.latencyMs,
          statusCode: outcome.statusCode,
          responseExcerpt: outcome.responseExcerpt,
          error,
          succeeded,
          next,
        },
        now,
      ),
    );
    recordAttemptMetrics(delivery.endpointId, outcome, succeeded, next.status === 'failed');
    if (next.status === 'failed')
      this.options.log.warn(
        { deliveryId: delivery.id, attempts: delivery.attemptNumber },
        'webhook delivery failed for good after its retry window',
      );
  }
}
