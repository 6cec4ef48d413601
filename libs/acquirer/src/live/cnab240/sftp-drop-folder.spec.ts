import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { utils } from 'ssh2';
import { Redacted } from '@pgw/domain';
import { ConfigError } from '@pgw/platform-http';
import { buildBoletoRail, type BoletoRail } from '../../live-rails';
import type { BoletoReturnEvent } from './cnab240-boleto-adapter';
import { DropFolderUnavailableError } from './drop-folder';
import { readCnab240File } from './return-file';
import { hostKeyFingerprint, SftpDropFolder } from './sftp-drop-folder';
import { BENEFICIARY, PROFILE, writeReturnFile } from './test-fixtures';
import { readableKeyPair, startSftpTestServer, type SftpTestServer } from './testing/sftp-server';

// The boleto rail with both drop folders on an SFTP server: ssh2's own server, started here on
// 127.0.0.1 over a temporary directory, stands for the bank's. The rail is built from the environment
// exactly as charges builds it, and the exchange is the job's (`rail.exchange`).

const USER = 'cnab';
const clientKey = readableKeyPair();
const strangerKey = readableKeyPair();

let dir: string;
let bankRoot: string;
let server: SftpTestServer;
let now: Date;
const clock = { now: () => now, today: () => now.toISOString().slice(0, 10) };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cnab240-sftp-'));
  bankRoot = join(dir, 'bank');
  mkdirSync(join(bankRoot, 'remessa'), { recursive: true });
  mkdirSync(join(bankRoot, 'retorno'), { recursive: true });
  writeFileSync(join(dir, 'id_ed25519'), clientKey.private, { mode: 0o600 });
  writeFileSync(join(dir, 'stranger_ed25519'), strangerKey.private, { mode: 0o600 });
  server = await startSftpTestServer({
    root: bankRoot,
    username: USER,
    clientPublicKey: clientKey.public,
  });
  now = new Date('2026-03-02T13:00:00.000Z');
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function env(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  const vars: Record<string, string> = {
    CNAB240_CNPJ: BENEFICIARY.cnpj,
    CNAB240_COMPANY_NAME: BENEFICIARY.companyName,
    CNAB240_AGENCY: BENEFICIARY.agency,
    CNAB240_AGENCY_DV: BENEFICIARY.agencyDv,
    CNAB240_ACCOUNT: BENEFICIARY.account,
    CNAB240_ACCOUNT_DV: BENEFICIARY.accountDv,
    CNAB240_AGREEMENT: BENEFICIARY.agreement,
    CNAB240_WALLET: BENEFICIARY.wallet,
    CNAB240_WALLET_VARIATION: BENEFICIARY.walletVariation,
    CNAB240_STATE_FILE: join(dir, 'state.json'),
    CNAB240_OUTBOX_URL: `sftp://${USER}@127.0.0.1:${server.port}/remessa`,
    CNAB240_INBOX_URL: `sftp://${USER}@127.0.0.1:${server.port}/retorno`,
    CNAB240_SFTP_PRIVATE_KEY_FILE: join(dir, 'id_ed25519'),
    CNAB240_SFTP_HOST_KEY_SHA256: server.hostKeySha256,
    CNAB240_SFTP_TIMEOUT_MS: '10000',
    ...overrides,
  };
  const scoped: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(vars)) scoped[`LIVE_RAIL_BB_${name}`] = value;
  return scoped;
}

const rail = (overrides?: Record<string, string>): BoletoRail =>
  buildBoletoRail({ provider: 'cnab240-bb', credentials: 'bb' }, env(overrides), clock);

const PAYER = {
  document: '52998224725',
  name: 'Maria da Conceicao',
  address: 'Rua do Ouvidor, 50',
  district: null,
  postalCode: '20040030',
  city: 'Rio de Janeiro',
  state: 'RJ',
};

async function register(r: BoletoRail, reference: string): Promise<void> {
  const result = await r.adapter.registerBoleto({
    reference,
    amountCents: 12_345,
    dueDate: '2026-03-20',
    payer: PAYER,
  });
  if (!result.ok) throw new Error(result.message);
}

function exchange(r: BoletoRail, events: BoletoReturnEvent[] = []) {
  return r.exchange.adapter.exchangeFiles({
    outbox: r.exchange.outbox,
    inbox: r.exchange.inbox,
    onReturn: async (e) => void events.push(e),
  });
}

const bankSees = (folder: string): string[] => readdirSync(join(bankRoot, folder)).sort();

describe('SftpDropFolder: the CNAB 240 exchange over the bank SFTP server', () => {
  it('leaves the remittance in the bank outbound folder and pays from the return file the bank leaves, archiving it on the server', async () => {
    // Proves the job's code path over SFTP end to end: remittance uploaded whole under its final name, the bank's return file listed, read, handed over as a liquidation and moved to processed/.
    const r = rail();
    await register(r, 'ch_sftp');
    const sent = await exchange(r);
    expect(sent.remittances).toHaveLength(1);
    const name = sent.remittances[0]!.name;
    expect(bankSees('remessa')).toEqual([name]);
    const remittance = readCnab240File(readFileSync(join(bankRoot, 'remessa', name), 'latin1'));
    if (!remittance.ok) throw new Error(remittance.error);
    expect(
      remittance.value.lots.flatMap((l) =>
        l.details.filter((d) => d.segment === 'P').map((d) => d.fields['nossoNumero']),
      ),
    ).toEqual(['12345670000000001']);

    writeFileSync(
      join(bankRoot, 'retorno', 'RET0001.RET'),
      writeReturnFile(PROFILE, 1, [
        {
          code: '06',
          nossoNumero: '12345670000000001',
          amountCents: 12_345,
          dueDate: '2026-03-20',
          paidCents: 12_345,
          netCreditCents: 12_155,
          feeCents: 190,
          occurredDate: '2026-03-09',
          creditDate: '2026-03-10',
        },
      ]),
      'latin1',
    );
    const events: BoletoReturnEvent[] = [];
    const read = await exchange(r, events);
    expect(read).toMatchObject({ returnFilesRead: ['RET0001.RET'], unreadable: [], events: 1 });
    expect(events.map((e) => [e.reference, e.return.outcome, e.boleto?.status])).toEqual([
      ['ch_sftp', 'paid', 'paid'],
    ]);
    expect(bankSees('retorno')).toEqual(['processed']);
    expect(readdirSync(join(bankRoot, 'retorno', 'processed'))).toEqual(['RET0001.RET']);
    expect(await r.exchange.inbox.list()).toEqual([]);
    // Nothing more to do: the next run reads nothing again and writes no file.
    expect(await exchange(r)).toMatchObject({ remittances: [], returnFilesRead: [], events: 0 });
  });

  it('never shows a partial remittance under its final name: a connection lost midway leaves a hidden file, and the next run uploads the same file whole', async () => {
    // Proves the upload's crash safety: temporary name, then rename; the bank lists nothing until the file is complete, and the retry writes the committed bytes under the same name.
    const r = rail();
    await register(r, 'ch_crash');
    server.dropConnectionOnNextWrite();
    const failed = await exchange(r).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(DropFolderUnavailableError);
    expect(failed).toMatchObject({ kind: 'unavailable' });

    const hidden = bankSees('remessa');
    expect(hidden).toHaveLength(1);
    expect(hidden[0]).toMatch(/^\..+\.tmp$/);
    const partial = readFileSync(join(bankRoot, 'remessa', hidden[0]!), 'latin1');
    expect(await r.exchange.outbox.list()).toEqual([]);

    const retried = await exchange(r);
    expect(retried.remittances).toMatchObject([{ fileSequence: 1, boletos: 1 }]);
    const name = retried.remittances[0]!.name;
    expect(hidden[0]).toBe(`.${name}.tmp`);
    expect(bankSees('remessa')).toEqual([name]);
    const whole = readFileSync(join(bankRoot, 'remessa', name), 'latin1');
    expect(partial.length).toBeLessThan(whole.length);
    expect(whole.startsWith(partial)).toBe(true);
    expect(readCnab240File(whole).ok).toBe(true);
  });

  it('replaces a file of the same name whole, as the adapter does when it rewrites a remittance after a crash past the rename', async () => {
    // Proves write's promise on a server whose RENAME refuses an existing target: the old file is replaced by the new one, never kept beside it or left half.
    const folder = rail().exchange.outbox;
    await folder.write('REM0001.REM', 'first\r\n');
    await folder.write('REM0001.REM', 'second, longer\r\n');
    expect(bankSees('remessa')).toEqual(['REM0001.REM']);
    expect(readFileSync(join(bankRoot, 'remessa', 'REM0001.REM'), 'latin1')).toBe(
      'second, longer\r\n',
    );
    expect(await folder.read('REM0001.REM')).toBe('second, longer\r\n');
  });

  it('refuses a server whose host key is not the configured one, before our key is offered', async () => {
    // Proves there is no trust on first use: another fingerprint configured, the connection ends at the host key and the server sees no authentication.
    const other = utils.parseKey(readableKeyPair().public);
    if (other instanceof Error) throw other;
    const r = rail({ CNAB240_SFTP_HOST_KEY_SHA256: hostKeyFingerprint(other.getPublicSSH()) });
    await register(r, 'ch_mitm');
    const failed = await exchange(r).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(DropFolderUnavailableError);
    expect(String((failed as Error).message)).toContain(
      `presented host key ${server.hostKeySha256}, not the configured one: refused`,
    );
    expect(server.authentications).toBe(0);
    expect(bankSees('remessa')).toEqual([]);
  });

  it('answers unavailable, not a crash, when the server refuses our key, and never prints the key', async () => {
    // Proves wrong credentials are an operating error of the port's kind: the exchange rejects with DropFolderUnavailableError and the slip waits for the next run.
    const r = rail({ CNAB240_SFTP_PRIVATE_KEY_FILE: join(dir, 'stranger_ed25519') });
    await register(r, 'ch_denied');
    const failed = await exchange(r).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(DropFolderUnavailableError);
    expect(failed).toMatchObject({ kind: 'unavailable' });
    expect((failed as Error).message).toMatch(
      new RegExp(`^write at sftp://${USER}@127.0.0.1:${server.port}/remessa: .*authentication`),
    );
    expect(server.authentications).toBeGreaterThan(0);
    expect(bankSees('remessa')).toEqual([]);
    const secret = strangerKey.private.split('\n')[1]!;
    expect(
      `${(failed as Error).message} ${inspect(r.exchange.outbox)} ${JSON.stringify(r.exchange.outbox)}`,
    ).not.toContain(secret);

    // With the right key the same slip goes out in the remittance that failed.
    const fixed = rail();
    expect((await exchange(fixed)).remittances).toMatchObject([{ fileSequence: 1, boletos: 1 }]);
  });

  it('answers unavailable when nothing listens at the address, within its deadline', async () => {
    // Proves an unreachable server is the port's unavailable, bounded by CNAB240_SFTP_TIMEOUT_MS.
    const port = server.port;
    await server.close();
    const folder = new SftpDropFolder({
      host: '127.0.0.1',
      port,
      username: USER,
      path: '/retorno',
      privateKey: new Redacted(Buffer.from(clientKey.private)),
      hostKeySha256: server.hostKeySha256,
      timeoutMs: 2_000,
    });
    await expect(folder.list()).rejects.toBeInstanceOf(DropFolderUnavailableError);
    server = await startSftpTestServer({
      root: bankRoot,
      username: USER,
      clientPublicKey: clientKey.public,
    });
  });

  it('refuses at configuration a drop folder without a host key, with a password in its URL, or with both a directory and a URL', () => {
    // Proves the settings that would weaken the connection never build a rail: each refusal names the variable.
    expect(() => rail({ CNAB240_SFTP_HOST_KEY_SHA256: '' })).toThrow(
      /CNAB240_SFTP_HOST_KEY_SHA256 is required/,
    );
    expect(() => rail({ CNAB240_SFTP_HOST_KEY_SHA256: 'ab:cd:ef' })).toThrow(
      /CNAB240_SFTP_HOST_KEY_SHA256: .*SHA256:/,
    );
    expect(() =>
      rail({ CNAB240_OUTBOX_URL: `sftp://${USER}:hunter2@127.0.0.1:${server.port}/remessa` }),
    ).toThrow(/CNAB240_OUTBOX_URL must not carry a password/);
    expect(() => rail({ CNAB240_INBOX_DIR: join(dir, 'inbox') })).toThrow(
      /exactly one of CNAB240_INBOX_DIR and CNAB240_INBOX_URL/,
    );
    expect(() => rail({ CNAB240_SFTP_PRIVATE_KEY_FILE: join(dir, 'missing') })).toThrow(
      /CNAB240_SFTP_PRIVATE_KEY_FILE: cannot read .*missing \(ENOENT\)/,
    );
    expect(() => rail({ CNAB240_SFTP_HOST_KEY_SHA256: '' })).toThrow(ConfigError);
  });
});
