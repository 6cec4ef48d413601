import { InProcessBus } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import type { KeyObject } from 'node:crypto';
import {
  generatePrincipalKeys,
  PRINCIPAL_HEADER,
  PRINCIPAL_TTL_MS,
  requestBinding,
  requireOperator,
  signPrincipal,
} from '@pgw/platform-http';
import { systemClock } from './clock';
import { InjectPeers } from './peers';
import { startService, type RunningService, type ServiceDefinition } from './service';

const CURRENT = generatePrincipalKeys();
const PREVIOUS = generatePrincipalKeys();

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

describe('a service during a rotation of the principal key pair', () => {
  const knex = createPgliteKnex(null);
  afterAll(() => knex.destroy());

  const signedWith = (service: RunningService, key: KeyObject) =>
    service.app.inject({
      url: '/admin/v1/whoami',
      headers: {
        [PRINCIPAL_HEADER]: signPrincipal(
          {
            kind: 'operator',
            requestId: 'req_rotation',
            expiresAtMs: Date.now() + PRINCIPAL_TTL_MS,
          },
          requestBinding('GET', '/admin/v1/whoami'),
          key,
        ),
      },
    });

  it('accepts principals signed for PRINCIPAL_PUBLIC_KEY or PRINCIPAL_PUBLIC_KEY_PREVIOUS, and refuses any other (401)', async () => {
    // Proves startService passes both public keys to the principal check during a rotation.
    const service = await startService(definition, {
      db: sharedDb(knex, 'rotating'),
      bus: new InProcessBus(),
      clock: systemClock,
      principalPublicKey: CURRENT.publicKeyPem,
      principalPublicKeyPrevious: PREVIOUS.publicKeyPem,
      peers: new InjectPeers(),
      env: {},
      log: { level: 'silent' },
    });
    try {
      expect((await signedWith(service, CURRENT.privateKey)).statusCode).toBe(200);
      expect((await signedWith(service, PREVIOUS.privateKey)).statusCode).toBe(200);
      const other = await signedWith(service, generatePrincipalKeys().privateKey);
      expect([other.statusCode, other.json().error.code]).toEqual([401, 'principal_invalid']);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('refuses the previous key pair once PRINCIPAL_PUBLIC_KEY_PREVIOUS is dropped', async () => {
    // Proves the last step of the rotation retires the old key: its principals are 401 from then on.
    const service = await startService(definition, {
      db: sharedDb(knex, 'rotated'),
      bus: new InProcessBus(),
      clock: systemClock,
      principalPublicKey: CURRENT.publicKey,
      peers: new InjectPeers(),
      env: {},
      log: { level: 'silent' },
    });
    try {
      expect((await signedWith(service, CURRENT.privateKey)).statusCode).toBe(200);
      const old = await signedWith(service, PREVIOUS.privateKey);
      expect([old.statusCode, old.json().error.code]).toEqual([401, 'principal_invalid']);
    } finally {
      await service.stop();
    }
  }, 60_000);
});
