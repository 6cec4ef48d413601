import { KafkaBus } from '@pgw/platform-bus';
import { createPgDb } from '@pgw/platform-db';
import { envInt, envSecret, envString, serve } from '@pgw/platform-http';
import { HttpPeers, startService, systemClock } from '@pgw/platform-service';
import { chargesService } from './service';

// Distributed mode: charges alone, on its schema of PostgreSQL, Kafka for its events and the directory's,
// the vault's internal token lookup and the acquirer (simulator) over HTTP.
async function main(): Promise<void> {
  const env = process.env;
  const db = createPgDb({ url: envString(env, 'DATABASE_URL'), schema: 'charges' });
  const bus = new KafkaBus({ brokers: envString(env, 'KAFKA_BROKERS').split(','), clientId: 'charges' });
  const service = await startService(chargesService, {
    db,
    bus,
    clock: systemClock,
    principalSecret: envSecret(env, 'PRINCIPAL_SECRET'),
    peers: new HttpPeers({ vault: envString(env, 'VAULT_URL'), 'acquirer-sim': envString(env, 'ACQUIRER_SIM_URL') }),
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
  process.stderr.write(`charges failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
