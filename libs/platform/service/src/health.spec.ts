import { InProcessBus } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { systemClock } from './clock';
import { InjectPeers } from './peers';
import { startService, type ServiceDefinition } from './service';

const definition: ServiceDefinition = { name: 'probe', migrations: [], build: async () => ({}) };

describe('/health of a service', () => {
  const knex = createPgliteKnex(null);
  afterAll(() => knex.destroy());

  it('answers 200 only while the database and the broker both answer, and 503 with the error body otherwise', async () => {
    const bus = new InProcessBus();
    let brokerUp = true;
    const probedBus = Object.assign(bus, {
      checkHealth: async () => {
        if (!brokerUp) throw new Error('broker unreachable');
      },
    });
    const service = await startService(definition, { db: sharedDb(knex, 'probe'), bus: probedBus, clock: systemClock, principalSecret: 'x'.repeat(32), peers: new InjectPeers(), env: {}, log: { level: 'silent' } });
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
