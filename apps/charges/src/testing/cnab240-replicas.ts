import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Cnab240BoletoAdapter,
  LocalDropFolder,
  readCnab240File,
  type BoletoReturnEvent,
} from '@pgw/acquirer';
import { CNAB240_TEST_PROFILE as PROFILE, writeReturnFile } from '@pgw/acquirer/testing';
import type { Db } from '@pgw/platform-db';
import { PgCnab240Store } from '../data/cnab240-state.repository';

// Two charges replicas sharing one bank account's CNAB 240 state in the database: what the PGlite spec and
// the PostgreSQL integration spec both prove, each on its own kind of connection.

const PAYER = {
  document: '52998224725',
  name: 'Ana Souza',
  address: 'Av Paulista 1000',
  district: null,
  postalCode: '01310100',
  city: 'Sao Paulo',
  state: 'SP',
};
const clock = { now: () => new Date('2026-03-02T13:00:00.000Z'), today: () => '2026-03-02' };
const ignore = async (): Promise<void> => undefined;

export interface Replicas {
  a: Cnab240BoletoAdapter;
  b: Cnab240BoletoAdapter;
  outbox: LocalDropFolder;
  inbox: LocalDropFolder;
  cleanUp(): Promise<void>;
}

/** One adapter per replica, each over its own database handle, on one account and one pair of drop folders. */
export async function replicasOf(dbA: Db, dbB: Db, account: string): Promise<Replicas> {
  const dir = await mkdtemp(join(tmpdir(), 'cnab240-replicas-'));
  return {
    a: new Cnab240BoletoAdapter({
      profile: PROFILE,
      store: new PgCnab240Store(dbA, account),
      clock,
    }),
    b: new Cnab240BoletoAdapter({
      profile: PROFILE,
      store: new PgCnab240Store(dbB, account),
      clock,
    }),
    outbox: new LocalDropFolder(join(dir, 'to-bank')),
    inbox: new LocalDropFolder(join(dir, 'from-bank')),
    cleanUp: () => rm(dir, { recursive: true, force: true }),
  };
}

async function register(adapter: Cnab240BoletoAdapter, reference: string): Promise<string> {
  const result = await adapter.registerBoleto({
    reference,
    amountCents: 1_000,
    dueDate: '2026-03-20',
    payer: PAYER,
  });
  if (!result.ok) throw new Error(`${reference}: ${result.kind} ${result.message}`);
  return result.value.barcode;
}

/** The nosso números of the P segments of every remittance in the outbox, file by file. */
async function remitted(outbox: LocalDropFolder): Promise<string[][]> {
  const out: string[][] = [];
  for (const name of (await outbox.list()).sort()) {
    const read = readCnab240File(await outbox.read(name));
    if (!read.ok) throw new Error(`${name}: ${read.error}`);
    out.push(
      read.value.lots.flatMap((l) =>
        l.details.filter((d) => d.segment === 'P').map((p) => String(p.fields['nossoNumero'])),
      ),
    );
  }
  return out;
}

const nossoNumero = (sequence: number): string => `1234567${String(sequence).padStart(10, '0')}`;

/** Slips registered side by side on two replicas: each has its own nosso número, and all go out in one remittance. */
export async function concurrentRegistrations(r: Replicas, count: number): Promise<void> {
  const references = Array.from({ length: count }, (_, i) => `ch_concurrent_${i}`);
  const barcodes = await Promise.all(
    references.map((reference, i) => register(i % 2 === 0 ? r.a : r.b, reference)),
  );
  expect(new Set(barcodes).size).toBe(count);
  for (const reference of references)
    expect(await r.b.getRegistration(reference)).toMatchObject({ reference, status: 'queued' });
  expect(
    (await r.a.exchangeFiles({ outbox: r.outbox, inbox: r.inbox, onReturn: ignore })).remittances,
  ).toEqual([{ name: 'CBR20260302000001.REM', fileSequence: 1, boletos: count }]);
  expect(await remitted(r.outbox)).toEqual([
    Array.from({ length: count }, (_, i) => nossoNumero(i + 1)),
  ]);
}

/** A slip registered on one replica while the other's exchange hands a return file's movements over is kept, and sent next. */
export async function registrationDuringExchange(r: Replicas): Promise<void> {
  await register(r.a, 'ch_paid');
  await r.a.exchangeFiles({ outbox: r.outbox, inbox: r.inbox, onReturn: ignore });
  await r.inbox.write(
    'RET0001.RET',
    writeReturnFile(PROFILE, 1, [
      {
        code: '06',
        nossoNumero: nossoNumero(1),
        amountCents: 1_000,
        dueDate: '2026-03-20',
        paidCents: 1_000,
        netCreditCents: 950,
      },
    ]),
  );
  const events: BoletoReturnEvent[] = [];
  await r.a.exchangeFiles({
    outbox: r.outbox,
    inbox: r.inbox,
    onReturn: async (event) => {
      events.push(event);
      await register(r.b, 'ch_during');
    },
  });
  expect(events.map((e) => [e.reference, e.return.outcome])).toEqual([['ch_paid', 'paid']]);
  expect(await r.b.getRegistration('ch_paid')).toMatchObject({ status: 'paid', paidCents: 1_000 });
  expect(await r.a.getRegistration('ch_during')).toMatchObject({
    status: 'queued',
    nossoNumeroSequence: 2,
  });
  await r.b.exchangeFiles({ outbox: r.outbox, inbox: r.inbox, onReturn: ignore });
  expect(await remitted(r.outbox)).toEqual([[nossoNumero(1)], [nossoNumero(2)]]);
}
