import { InProcessBus } from '@pgw/platform-bus';
import { generatePrincipalKeys } from '@pgw/platform-http';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { systemClock } from './clock';
import { InjectPeers } from './peers';
import { migrateOnStart, startService, type ServiceDefinition } from './service';

const definition: ServiceDefinition = { name: 'probe', migrations: [], build: async () => ({}) };

describe('/health of a service', () => {
  const knex = createPgliteKnex(null);
  afterAll(() => knex.destroy());

  it('keeps /livez at 200 while /readyz turns 503 without the broker, and migrates at start unless MIGRATE_ON_START=0', async () => {
    // Proves a broker outage takes a pod out of the Service (readiness) without restarting it (liveness).
    let brokerUp = true;
    const bus = Object.assign(new InProcessBus(), {
      checkHealth: async () => {
        if (!brokerUp) throw new Error('broker unreachable');
      },
    });
    const db = sharedDb(knex, 'probe_livez');
    const service = await startService(definition, {
      db,
      bus,
      clock: systemClock,
      principalPublicKey: generatePrincipalKeys().publicKey,
      peers: new InjectPeers(),
      env: {},
      log: { level: 'silent' },
    });
    try {
      brokerUp = false;
      const [live, ready] = [
        await service.app.inject({ url: '/livez' }),
        await service.app.inject({ url: '/readyz' }),
      ];
      expect([live.statusCode, ready.statusCode]).toEqual([200, 503]);
      expect(ready.json().error).toMatchObject({ code: 'service_unavailable' });
      brokerUp = true;
      expect((await service.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await service.stop();
    }
    expect([
      migrateOnStart({}),
      migrateOnStart({ MIGRATE_ON_START: '0' }),
      migrateOnStart({ MIGRATE_ON_START: 'false' }),
      migrateOnStart({ MIGRATE_ON_START: '1' }),
    ]).toEqual([true, false, false, true]);
  }, 60_000);

  it('answers 200 only while the database and the broker both answer, and 503 with the error body otherwise', async () => {
    const bus = new InProcessBus();
    let brokerUp = true;
    const probedBus = Object.assign(bus, {
      checkHealth: async () => {
        if (!brokerUp) throw new Error('broker unreachable');
      },
    });
    const service = await startService(definition, {
      db: sharedDb(knex, 'probe'),
      bus: probedBus,
      clock: systemClock,
      principalPublicKey: generatePrincipalKeys().publicKey,
      peers: new InjectPeers(),
      env: {},
      log: { level: 'silent' },
    });
    try {
      const up = await service.app.inject({ url: '/health' });
      expect([up.statusCode, up.json()]).toEqual([200, { status: 'ok', service: 'probe' }]);
      brokerUp = false;
      const down = await service.app.inject({ url: '/health' });
      expect(down.statusCode).toBe(503);
      expect(down.json().error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
    } finally {
      await service.stop();
    }
  }, 60_000);
});
