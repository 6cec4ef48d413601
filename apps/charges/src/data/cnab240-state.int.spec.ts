import { createPgDb, type Db } from '@pgw/platform-db';
import { integrationEnv, uniqueName } from '@pgw/testing';
import { chargesMigrations } from '../migrations';
import {
  concurrentRegistrations,
  registrationDuringExchange,
  replicasOf,
  type Replicas,
} from '../testing/cnab240-replicas';

// The CNAB 240 state on the real PostgreSQL, two replicas as two pools of 5: their registrations really
// run side by side here, and the row lock of each update is what keeps them apart.
const env = integrationEnv();
const schema = uniqueName('charges_cnab');
let dbA: Db;
let dbB: Db;
let r: Replicas;
let account = 0;

beforeAll(async () => {
  dbA = createPgDb({ url: env.databaseUrl, schema, poolMax: 5 });
  dbB = createPgDb({ url: env.databaseUrl, schema, poolMax: 5 });
  await dbA.migrate(chargesMigrations);
}, 60_000);
beforeEach(async () => {
  r = await replicasOf(dbA, dbB, `cnab240-bb:account-${++account}`);
});
afterEach(async () => {
  await r.cleanUp();
});
afterAll(async () => {
  await dbA.knex.raw(`drop schema if exists "${schema}" cascade`);
  await dbA.close();
  await dbB.close();
});

describe('PgCnab240Store on PostgreSQL, two replicas', () => {
  it('gives slips registered at once on two replicas each its own nosso número, and sends them all in one remittance', async () => {
    // Proves the row lock: 60 concurrent registrations, none lost, none numbered twice.
    await concurrentRegistrations(r, 60);
  });

  it("keeps a slip one replica registers while the other's exchange hands over a return file, and sends it next", async () => {
    // Proves the exchange applies a return file to the state as it is then.
    await registrationDuringExchange(r);
  });
});
