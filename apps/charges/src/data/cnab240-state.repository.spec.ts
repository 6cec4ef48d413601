import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { chargesMigrations } from '../migrations';
import {
  concurrentRegistrations,
  registrationDuringExchange,
  replicasOf,
  type Replicas,
} from '../testing/cnab240-replicas';

// The CNAB 240 state in charges' schema, shared by two replicas (two handles on the embedded database).
// PGlite's one connection runs their transactions one after the other; what this proves is that each
// registration and each step of the exchange is one read-decide-save, never interleaved with another's.
const knex = createPgliteKnex(null);
const dbA = sharedDb(knex, 'charges');
const dbB = sharedDb(knex, 'charges');
let r: Replicas;
let account = 0;

beforeAll(async () => {
  await dbA.migrate(chargesMigrations);
}, 60_000);
beforeEach(async () => {
  r = await replicasOf(dbA, dbB, `cnab240-bb:account-${++account}`);
});
afterEach(async () => {
  await r.cleanUp();
});
afterAll(async () => {
  await knex.destroy();
});

describe('PgCnab240Store', () => {
  it('gives slips registered side by side on two replicas each its own nosso número, and sends them all in one remittance', async () => {
    // Proves no registration is lost or numbered twice when replicas register at once.
    await concurrentRegistrations(r, 30);
  });

  it("keeps a slip one replica registers while the other's exchange hands over a return file, and sends it next", async () => {
    // Proves the exchange applies a return file to the state as it is then, not to the copy it read first.
    await registrationDuringExchange(r);
  });

  it('keeps each bank account to its own state', async () => {
    // Proves two accounts never share a sequence: the same first nosso número on both.
    const other = await replicasOf(dbA, dbB, `cnab240-bb:account-${++account}`);
    try {
      const first = await r.a.registerBoleto({
        reference: 'ch_x',
        amountCents: 100,
        dueDate: '2026-03-10',
        payer: {
          document: '52998224725',
          name: 'Ana',
          address: 'Rua A 1',
          district: null,
          postalCode: '01310100',
          city: 'Sao Paulo',
          state: 'SP',
        },
      });
      const second = await other.a.registerBoleto({
        reference: 'ch_y',
        amountCents: 100,
        dueDate: '2026-03-10',
        payer: {
          document: '52998224725',
          name: 'Ana',
          address: 'Rua A 1',
          district: null,
          postalCode: '01310100',
          city: 'Sao Paulo',
          state: 'SP',
        },
      });
      expect([
        (await r.a.getRegistration('ch_x'))?.nossoNumeroSequence,
        (await other.a.getRegistration('ch_y'))?.nossoNumeroSequence,
      ]).toEqual([1, 1]);
      expect([first.ok, second.ok, await other.a.getRegistration('ch_x')]).toEqual([
        true,
        true,
        null,
      ]);
    } finally {
      await other.cleanUp();
    }
  });
});
