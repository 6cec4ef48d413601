import { KafkaBus } from '@pgw/platform-bus';
import { createPgDb } from '@pgw/platform-db';
import { envInt, envSecret, envString, serve } from '@pgw/platform-http';
import { HttpPeers, startService, systemClock } from '@pgw/platform-service';
import { receivablesService } from './service';

// Distributed mode: receivables alone, on its own schema of PostgreSQL and on Kafka.
async function main(): Promise<void> {
  const env = process.env;
  const db = createPgDb({ url: envString(env, 'DATABASE_URL'), schema: 'receivables' });
  const bus = new KafkaBus({ brokers: envString(env, 'KAFKA_BROKERS').split(','), clientId: 'receivables' });
  const service = await startService(receivablesService, {
    db,
    bus,
    clock: systemClock,
    principalSecret: envSecret(env, 'PRINCIPAL_SECRET'),
    peers: new HttpPeers({}),
    env,
  });
  service.app.addHook('onClose', async () => {
    await service.relay.stop();
    await bus.close();
    await db.close();
  });
  await serve(service.app, envInt(env, 'PORT', 8080));
}

main().catch((err: unknown) => {
  process.stderr.write(`receivables failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
