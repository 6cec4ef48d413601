import type { ServiceDefinition } from '@pgw/platform-service';
import { webhooksConfig } from './config';
import { directoryConsumer } from './consumers/directory.consumer';
import { eventsConsumer } from './consumers/events.consumer';
import { DeliveryWorker } from './delivery/delivery-worker';
import { webhooksMigrations } from './migrations';
import { deliveriesRoutes } from './routes/deliveries.route';
import { rotateSecretRoute } from './routes/rotate-secret.route';

export interface WebhooksServiceOptions {
  /** The back-off's jitter source (tests pin it). */
  random?: () => number;
}

/**
 * The webhooks service: consumes every topic with webhook kinds and the directory's endpoints, delivers
 * contract §7's signed events with retries, logs every attempt, and serves the operator's delivery routes.
 */
export function createWebhooksService(options: WebhooksServiceOptions = {}): ServiceDefinition {
  return {
    name: 'webhooks',
    migrations: webhooksMigrations,
    async build(app, { db, clock, env }) {
      const worker = new DeliveryWorker({
        db,
        clock,
        config: webhooksConfig(env),
        log: app.log,
        ...(options.random ? { random: options.random } : {}),
      });
      const wake = () => worker.wake();
      deliveriesRoutes(app, { db, clock, wake });
      rotateSecretRoute(app, { db, clock });
      return {
        consumers: [directoryConsumer(clock), eventsConsumer(clock, wake)],
        onStart: async () => worker.start(),
        onStop: () => worker.stop(),
      };
    },
  };
}

/** The webhooks service as the all-in-one and the distributed main run it. */
export const webhooksService: ServiceDefinition = createWebhooksService();
