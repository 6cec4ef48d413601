import { KafkaBus } from '@pgw/platform-bus';
import { createPgDb } from '@pgw/platform-db';
import { envInt, envSecret, envString, serve } from '@pgw/platform-http';
import { HttpPeers, startService, systemClock } from '@pgw/platform-service';
import { webhooksService } from './service';

// Distributed mode: the webhooks service alone, on its own schema of PostgreSQL and on Kafka. Its
// replicas share the deliveries table (leased rows), so any number of them can run.
async function main(): Promise<void> {
  const env = process.env;
  const db = createPgDb({ url: envString(env, 'DATABASE_URL'), schema: 'webhooks' });
  const bus = new KafkaBus({ brokers: envString(env, 'KAFKA_BROKERS').split(',').map((b) => b.trim()), clientId: 'webhooks' });
  const service = await startService(webhooksService, {
    db,
    bus,
    clock: systemClock,
    principalSecret: envSecret(env, 'PRINCIPAL_SECRET'),
    peers: new HttpPeers({}),
    env,
  });
  // serve() closes the app on SIGTERM; stop() first ends the worker (attempts in flight are logged and
  // retried later), the consumers and the relay, then the bus and the pool go.
  service.app.addHook('onClose', async () => {
    await service.stop();
    await bus.close();
    await db.close();
  });
  await serve(service.app, envInt(env, 'PORT', 8080));
}

main().catch((err: unknown) => {
  process.stderr.write(`webhooks failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
