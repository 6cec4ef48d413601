import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CNAB240_TEST_PROFILE as PROFILE,
  readableKeyPair,
  startSftpTestServer,
  writeReturnFile,
  type SftpTestServer,
} from '@pgw/acquirer/testing';
import { createPgliteKnex } from '@pgw/platform-db';
import {
  asOperator,
  buyer,
  get,
  merchant,
  post,
  runJob,
  startCharges,
  type Harness,
} from '../testing/harness';
import { bankAccountEnv } from '../testing/live-rail-env';

// The boleto-exchange job with a bank account whose drop folders are on the bank's SFTP server (ssh2's
// server on 127.0.0.1 over a temporary directory), beside one on a directory: the job exchanges files over
// SFTP and pays from the return file, and a server that refuses our key stops only its own account.
jest.setTimeout(60_000);

const knex = createPgliteKnex(null);
const dir = mkdtempSync(join(tmpdir(), 'charges-sftp-'));
const bankRoot = join(dir, 'bank');
const ourKey = readableKeyPair();
const strangerKey = readableKeyPair();
let server: SftpTestServer;
let h: Harness;

beforeAll(async () => {
  mkdirSync(join(bankRoot, 'remessa'), { recursive: true });
  mkdirSync(join(bankRoot, 'retorno'), { recursive: true });
  writeFileSync(join(dir, 'our-key'), ourKey.private, { mode: 0o600 });
  writeFileSync(join(dir, 'stranger-key'), strangerKey.private, { mode: 0o600 });
  server = await startSftpTestServer({
    root: bankRoot,
    username: 'cnab',
    clientPublicKey: ourKey.public,
  });
  const sftp = (key: string): Record<string, string> => ({
    OUTBOX_URL: `sftp://cnab@127.0.0.1:${server.port}/remessa`,
    INBOX_URL: `sftp://cnab@127.0.0.1:${server.port}/retorno`,
    SFTP_PRIVATE_KEY_FILE: join(dir, key),
    SFTP_HOST_KEY_SHA256: server.hostKeySha256,
    SFTP_TIMEOUT_MS: '10000',
  });
  h = await startCharges(knex, {
    env: {
      ...bankAccountEnv('bb_sftp', sftp('our-key')),
      ...bankAccountEnv('bb_denied', sftp('stranger-key')),
      ...bankAccountEnv('bb_dir', {
        OUTBOX_DIR: join(dir, 'dir', 'to-bank'),
        INBOX_DIR: join(dir, 'dir', 'from-bank'),
      }),
    },
  });
});
afterAll(async () => {
  await h.stop();
  await knex.destroy();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A live tenant on a bank account, and one boleto charge of it. */
async function boletoOn(
  credentials: string,
): Promise<{ id: string; barcode: string; dueDate: string; key: Record<string, string> }> {
  const live = await merchant(h, { livemode: true });
  const set = await h.app.inject({
    method: 'PUT',
    url: `/admin/v1/tenants/${live.tenantId}/live-rails`,
    headers: asOperator(),
    payload: { card: null, pix: null, boleto: { provider: 'cnab240-bb', credentials } },
  });
  expect(set.statusCode).toBe(200);
  const slip = await post(
    h,
    '/api/v1/charges',
    { ...live.key, 'idempotency-key': `sftp-${credentials}` },
    { amount: 4_200, payment_method: 'BOLETO', buyer: buyer() },
  );
  expect(slip.statusCode).toBe(201);
  return {
    id: slip.json().id,
    barcode: slip.json().boleto.barcode,
    dueDate: slip.json().boleto.due_date,
    key: live.key,
  };
}

describe('boleto-exchange over SFTP', () => {
  it('Proves a server that refuses our key stops only its own account: the job answers 200 and the other accounts exchange their files', async () => {
    const denied = await boletoOn('bb_denied');
    await boletoOn('bb_dir');
    const run = await post(h, '/admin/v1/jobs/boleto-exchange', asOperator());
    expect(run.statusCode).toBe(200);
    expect(run.json().processed).toBe(0);
    // The directory account's remittance went out; nothing reached the SFTP server under the refused key.
    expect(readdirSync(join(dir, 'dir', 'to-bank')).filter((f) => !f.startsWith('.'))).toHaveLength(
      1,
    );
    expect(readdirSync(join(bankRoot, 'remessa'))).toEqual([]);
    expect((await get(h, `/api/v1/charges/${denied.id}`, denied.key)).json().status).toBe(
      'pending',
    );
  });

  it('Proves the job sends the remittance to the bank SFTP server and pays the charge its return file liquidates there', async () => {
    const slip = await boletoOn('bb_sftp');
    await runJob(h, 'boleto-exchange');
    const remittances = readdirSync(join(bankRoot, 'remessa'));
    expect(remittances).toHaveLength(1);
    expect(remittances[0]).not.toMatch(/^\./);

    writeFileSync(
      join(bankRoot, 'retorno', 'RET00001.RET'),
      writeReturnFile(PROFILE, 1, [
        {
          code: '06',
          nossoNumero: slip.barcode.slice(25, 42),
          amountCents: 4_200,
          dueDate: slip.dueDate,
          paidCents: 4_200,
          netCreditCents: 4_000,
        },
      ]),
    );
    expect((await runJob(h, 'boleto-exchange')).processed).toBe(1);
    expect((await get(h, `/api/v1/charges/${slip.id}`, slip.key)).json().status).toBe('paid');
    expect(readdirSync(join(bankRoot, 'retorno', 'processed'))).toEqual(['RET00001.RET']);
  });
});
