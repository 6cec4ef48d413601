import { KafkaBus } from '@pgw/platform-bus';
import { createPgDb } from '@pgw/platform-db';
import { envInt, envSecret, envString, serve } from '@pgw/platform-http';
import { HttpPeers, startService, systemClock } from '@pgw/platform-service';
import { createVaultService } from './service';

// Distributed mode: the vault alone, on its schema of PostgreSQL, Kafka for the directory events, the
// acquirer simulator (or a real acquirer's adapter) over HTTP. Its keys come only from the environment.
async function main(): Promise<void> {
  const env = process.env;
  const db = createPgDb({ url: envString(env, 'DATABASE_URL'), schema: 'vault' });
  const bus = new KafkaBus({ brokers: envString(env, 'KAFKA_BROKERS').split(','), clientId: 'vault' });
  const service = await startService(createVaultService({ keys: 'environment' }), {
    db,
    bus,
    clock: systemClock,
    principalSecret: envSecret(env, 'PRINCIPAL_SECRET'),
    peers: new HttpPeers({ 'acquirer-sim': envString(env, 'ACQUIRER_SIM_URL') }),
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
  process.stderr.write(`vault failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
