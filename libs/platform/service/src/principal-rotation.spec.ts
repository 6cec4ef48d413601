import { InProcessBus } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, PRINCIPAL_TTL_MS, requireOperator, signPrincipal } from '@pgw/platform-http';
import { systemClock } from './clock';
import { InjectPeers } from './peers';
import { startService, type ServiceDefinition } from './service';

const CURRENT = 'principal-secret-current-0123456789';
const PREVIOUS = 'principal-secret-previous-0123456789';

const definition: ServiceDefinition = {
  name: 'rotating',
  migrations: [],
  build: async (app) => {
    app.get('/admin/v1/whoami', async (request) => {
      requireOperator(request);
      return { ok: true };
    });
    return {};
  },
};

describe('a service during a rotation of PRINCIPAL_SECRET', () => {
  const knex = createPgliteKnex(null);
  afterAll(() => knex.destroy());

  it('accepts principals signed with PRINCIPAL_SECRET or PRINCIPAL_SECRET_PREVIOUS, and refuses any other (401)', async () => {
    const service = await startService(definition, { db: sharedDb(knex, 'rotating'), bus: new InProcessBus(), clock: systemClock, principalSecret: CURRENT, principalSecretPrevious: PREVIOUS, peers: new InjectPeers(), env: {}, log: { level: 'silent' } });
    try {
      const signedWith = (secret: string) =>
        service.app.inject({ url: '/admin/v1/whoami', headers: { [PRINCIPAL_HEADER]: signPrincipal({ kind: 'operator', requestId: 'req_rotation', expiresAtMs: Date.now() + PRINCIPAL_TTL_MS }, secret) } });
      expect((await signedWith(CURRENT)).statusCode).toBe(200);
      expect((await signedWith(PREVIOUS)).statusCode).toBe(200);
      const other = await signedWith('principal-secret-of-nobody-0123456789');
      expect([other.statusCode, other.json().error.code]).toEqual([401, 'principal_invalid']);
    } finally {
      await service.stop();
    }
  }, 60_000);
});
