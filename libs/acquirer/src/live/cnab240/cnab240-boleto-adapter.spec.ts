import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { barcodeFromDigitableLine, isValidBarcode, readBarcode } from '@pgw/domain';
import { Cnab240BoletoAdapter, type BoletoReturnEvent } from './cnab240-boleto-adapter';
import { LocalDropFolder, type DropFolder } from './drop-folder';
import { readCnab240File } from './return-file';
import { FileCnab240Store } from './state-store';
import { PROFILE, writeReturnFile } from './test-fixtures';

// The adapter over real directories in a temporary folder: the drop folders and the state file are the
// ones a single-node deployment would use.

let root: string;
let now: Date;
const clock = { now: () => now, today: () => now.toISOString().slice(0, 10) };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cnab240-'));
  now = new Date('2026-03-02T13:00:00.000Z');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A payer as charges passes a boleto buyer: accents and a complement in the address, no bairro. */
const PAYER = {
  document: '52998224725',
  name: 'Mária da Conceição',
  address: 'Rua do Ouvidor, 50, Sala 3',
  district: null,
  postalCode: '20040030',
  city: 'Rio de Janeiro',
  state: 'rj',
};

const statePath = (): string => join(root, 'state', 'cnab240.json');
const adapter = (): Cnab240BoletoAdapter =>
  new Cnab240BoletoAdapter({ profile: PROFILE, store: new FileCnab240Store(statePath()), clock });
const outboxDir = (): string => join(root, 'outbox');
const inboxDir = (): string => join(root, 'inbox');
const folders = () => ({
  outbox: new LocalDropFolder(outboxDir()),
  inbox: new LocalDropFolder(inboxDir()),
});
const ignore = async (): Promise<void> => undefined;

async function value<T>(
  promise: Promise<{ ok: true; value: T } | { ok: false; kind: string; message: string }>,
): Promise<T> {
  const result = await promise;
  if (!result.ok) throw new Error(`${result.kind}: ${result.message}`);
  return result.value;
}

async function remittancesIn(
  dir: string,
): Promise<Array<{ name: string; fileSequence: string; nossoNumeros: unknown[] }>> {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => e.name);
  const out = [];
  for (const name of names.sort()) {
    const read = readCnab240File(await new LocalDropFolder(dir).read(name));
    if (!read.ok) throw new Error(`${name}: ${read.error}`);
    const ps = read.value.lots.flatMap((l) => l.details.filter((d) => d.segment === 'P'));
    out.push({
      name,
      fileSequence: String(read.value.header['fileSequence']),
      nossoNumeros: ps.map((p) => p.fields['nossoNumero']),
    });
  }
  return out;
}

describe('Cnab240BoletoAdapter: registration', () => {
  it('issues a Banco do Brasil slip at once: valid barcode and digitable line carrying our nosso número, amount and due date', async () => {
    // Proves that registerBoleto answers what the port promises (status registered, barcode, digitable line) before any file is exchanged.
    const boleto = await value(
      adapter().registerBoleto({
        reference: 'ch_one',
        amountCents: 12_345,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    );
    expect(boleto).toMatchObject({
      reference: 'ch_one',
      status: 'registered',
      amountCents: 12_345,
      dueDate: '2026-03-10',
      paidAt: null,
    });
    expect(isValidBarcode(boleto.barcode)).toBe(true);
    expect(barcodeFromDigitableLine(boleto.digitableLine)).toBe(boleto.barcode);
    expect(readBarcode(boleto.barcode)).toMatchObject({
      bankCode: '001',
      amountCents: 12_345,
      campoLivre: '000000' + '1234567' + '0000000001' + '17',
    });
  });

  it('is idempotent by reference: the same request returns the same slip, another request under it is reference_reused', async () => {
    // Proves the port's first rule across adapter instances (a retry after a restart).
    const first = await value(
      adapter().registerBoleto({
        reference: 'ch_one',
        amountCents: 500,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    );
    expect(
      await value(
        adapter().registerBoleto({
          reference: 'ch_one',
          amountCents: 500,
          dueDate: '2026-03-10',
          payer: PAYER,
        }),
      ),
    ).toEqual(first);
    expect(
      await adapter().registerBoleto({
        reference: 'ch_one',
        amountCents: 501,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    ).toMatchObject({ ok: false, kind: 'rejected', code: 'reference_reused' });
    const second = await value(
      adapter().registerBoleto({
        reference: 'ch_two',
        amountCents: 500,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    );
    expect(second.barcode).not.toBe(first.barcode);
  });

  it('refuses a past due date, a bad reference, amount or date, and says a live slip cannot be paid from here', async () => {
    // Proves the port's rejection values for what a bank would refuse anyway.
    const a = adapter();
    expect(
      await a.registerBoleto({
        reference: 'ch_late',
        amountCents: 100,
        dueDate: '2026-03-01',
        payer: PAYER,
      }),
    ).toMatchObject({ kind: 'rejected', code: 'boleto_due_date_invalid' });
    expect(
      await a.registerBoleto({
        reference: 'bad ref',
        amountCents: 100,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    ).toMatchObject({ kind: 'rejected', code: 'invalid_request' });
    expect(
      await a.registerBoleto({
        reference: 'ch_x',
        amountCents: 0,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    ).toMatchObject({ kind: 'rejected', code: 'invalid_request' });
    expect(
      await a.registerBoleto({
        reference: 'ch_x',
        amountCents: 100,
        dueDate: '2026-02-30',
        payer: PAYER,
      }),
    ).toMatchObject({ kind: 'rejected', code: 'invalid_request' });
    expect(await a.getBoleto('ch_unknown')).toMatchObject({ ok: false, kind: 'not_found' });
    await value(
      a.registerBoleto({
        reference: 'ch_x',
        amountCents: 100,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    );
    expect(await a.payBoleto()).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'invalid_request',
    });
  });
});

describe('Cnab240BoletoAdapter: the payer', () => {
  it('refuses a registration without a payer, or with one a bank would reject, as invalid_request, and queues nothing', async () => {
    // Proves that no slip reaches a remittance without the name, CPF/CNPJ and address banks require (reasons 45–48, 52).
    const a = adapter();
    const { payer: _none, ...withoutPayer } = {
      reference: 'ch_nopayer',
      amountCents: 100,
      dueDate: '2026-03-10',
      payer: PAYER,
    };
    expect(await a.registerBoleto(withoutPayer)).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'invalid_request',
      message: expect.stringContaining('payer is required'),
    });
    for (const [field, bad] of [
      ['document', '123'],
      ['name', '  '],
      ['address', ''],
      ['postalCode', '2004003'],
      ['city', ''],
      ['state', 'Rio de Janeiro'],
    ] as const) {
      expect(
        await a.registerBoleto({ ...withoutPayer, payer: { ...PAYER, [field]: bad } }),
      ).toMatchObject({
        ok: false,
        kind: 'rejected',
        code: 'invalid_request',
        message: expect.stringContaining(`payer.${field}`),
      });
    }
    expect((await a.exchangeFiles({ ...folders(), onReturn: ignore })).remittances).toEqual([]);
  });

  it("writes the payer's name, CPF or CNPJ and address into segment Q of the remittance", async () => {
    // Proves what the bank reads of the payer, parsed back from the written file: inscription type, number, name, address, CEP, city, UF.
    const a = adapter();
    await value(
      a.registerBoleto({
        reference: 'ch_cpf',
        amountCents: 100,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    );
    const company = {
      ...PAYER,
      document: '11222333000181',
      name: 'Loja Acme Ltda',
      address: 'Av Paulista 1000',
      district: 'Bela Vista',
      postalCode: '01310100',
      city: 'São Paulo',
      state: 'SP',
    };
    await value(
      a.registerBoleto({
        reference: 'ch_cnpj',
        amountCents: 200,
        dueDate: '2026-03-10',
        payer: company,
      }),
    );
    await a.exchangeFiles({ ...folders(), onReturn: ignore });
    const [name] = await readdir(outboxDir());
    const read = readCnab240File(await new LocalDropFolder(outboxDir()).read(name!));
    if (!read.ok) throw new Error(read.error);
    const qs = read.value.lots
      .flatMap((l) => l.details.filter((d) => d.segment === 'Q'))
      .map((q) => q.fields);
    expect(qs).toEqual([
      expect.objectContaining({
        payerInscriptionType: '1',
        payerInscriptionNumber: '000052998224725',
        payerName: 'MARIA DA CONCEICAO',
        payerAddress: 'RUA DO OUVIDOR, 50, SALA 3',
        payerDistrict: '',
        payerPostalCode: '20040030',
        payerCity: 'RIO DE JANEIRO',
        payerState: 'RJ',
      }),
      expect.objectContaining({
        payerInscriptionType: '2',
        payerInscriptionNumber: '011222333000181',
        payerName: 'LOJA ACME LTDA',
        payerAddress: 'AV PAULISTA 1000',
        payerDistrict: 'BELA VISTA',
        payerPostalCode: '01310100',
        payerCity: 'SAO PAULO',
        payerState: 'SP',
      }),
    ]);
  });

  it('treats the same reference with another payer as reference_reused', async () => {
    // Proves that the payer is part of what a retry must repeat: a slip is never re-addressed silently.
    const a = adapter();
    await value(
      a.registerBoleto({
        reference: 'ch_one',
        amountCents: 100,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    );
    expect(
      await a.registerBoleto({
        reference: 'ch_one',
        amountCents: 100,
        dueDate: '2026-03-10',
        payer: { ...PAYER, name: 'Outra Pessoa' },
      }),
    ).toMatchObject({ ok: false, kind: 'rejected', code: 'reference_reused' });
  });
});

describe('Cnab240BoletoAdapter: the remittance exchange', () => {
  it('writes one remittance per run with the slips registered since the last, under a new file sequence each time', async () => {
    // Proves the queue → file path and that a file sequence is never reused.
    const a = adapter();
    await value(
      a.registerBoleto({
        reference: 'ch_1',
        amountCents: 100,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    );
    await value(
      a.registerBoleto({
        reference: 'ch_2',
        amountCents: 200,
        dueDate: '2026-03-11',
        payer: PAYER,
      }),
    );
    expect((await a.exchangeFiles({ ...folders(), onReturn: ignore })).remittances).toEqual([
      { name: 'CBR20260302000001.REM', fileSequence: 1, boletos: 2 },
    ]);
    expect((await a.exchangeFiles({ ...folders(), onReturn: ignore })).remittances).toEqual([]);
    await value(
      a.registerBoleto({
        reference: 'ch_3',
        amountCents: 300,
        dueDate: '2026-03-12',
        payer: PAYER,
      }),
    );
    await a.exchangeFiles({ ...folders(), onReturn: ignore });
    expect(await remittancesIn(outboxDir())).toEqual([
      {
        name: 'CBR20260302000001.REM',
        fileSequence: '000001',
        nossoNumeros: ['12345670000000001', '12345670000000002'],
      },
      {
        name: 'CBR20260302000002.REM',
        fileSequence: '000002',
        nossoNumeros: ['12345670000000003'],
      },
    ]);
  });

  it('after a crash between writing the file and renaming it, the next run produces one file with the one registration', async () => {
    // Proves crash safety: the temporary file of the dead run is replaced, the sequence is not burnt, the slip is not doubled.
    const local = new LocalDropFolder(outboxDir());
    const crashBeforeRename: DropFolder = {
      list: () => local.list(),
      read: (name) => local.read(name),
      archive: (name, to) => local.archive(name, to),
      async write(name, content) {
        // What LocalDropFolder.write does up to its rename, then the process dies.
        await local.list();
        await writeFile(join(outboxDir(), `.${name}.tmp`), content.slice(0, 500), 'latin1');
        throw new Error('killed before rename');
      },
    };
    await value(
      adapter().registerBoleto({
        reference: 'ch_crash',
        amountCents: 4_200,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    );
    await expect(
      adapter().exchangeFiles({
        outbox: crashBeforeRename,
        inbox: new LocalDropFolder(inboxDir()),
        onReturn: ignore,
      }),
    ).rejects.toThrow('killed before rename');
    expect(await local.list()).toEqual([]);

    // The process restarts: a new adapter over the same state; the caller retries its registration too.
    await value(
      adapter().registerBoleto({
        reference: 'ch_crash',
        amountCents: 4_200,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    );
    const summary = await adapter().exchangeFiles({ ...folders(), onReturn: ignore });
    expect(summary.remittances).toEqual([
      { name: 'CBR20260302000001.REM', fileSequence: 1, boletos: 1 },
    ]);
    expect(await readdir(outboxDir())).toEqual(['CBR20260302000001.REM']);
    expect(await remittancesIn(outboxDir())).toEqual([
      {
        name: 'CBR20260302000001.REM',
        fileSequence: '000001',
        nossoNumeros: ['12345670000000001'],
      },
    ]);
    expect((await adapter().exchangeFiles({ ...folders(), onReturn: ignore })).remittances).toEqual(
      [],
    );
  });

  it('after a crash between the rename and recording it, the next run writes the same bytes under the same name, not a second file', async () => {
    // Proves that the committed file is rewritten identically: the bank never sees two sequences for one slip.
    const local = new LocalDropFolder(outboxDir());
    const crashAfterRename: DropFolder = {
      list: () => local.list(),
      read: (name) => local.read(name),
      archive: (name, to) => local.archive(name, to),
      async write(name, content) {
        await local.write(name, content);
        throw new Error('killed after rename');
      },
    };
    await value(
      adapter().registerBoleto({
        reference: 'ch_a',
        amountCents: 100,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    );
    await expect(
      adapter().exchangeFiles({
        outbox: crashAfterRename,
        inbox: new LocalDropFolder(inboxDir()),
        onReturn: ignore,
      }),
    ).rejects.toThrow('killed after rename');
    const before = await local.read('CBR20260302000001.REM');
    now = new Date('2026-03-02T15:30:00.000Z');
    await adapter().exchangeFiles({ ...folders(), onReturn: ignore });
    expect(await local.list()).toEqual(['CBR20260302000001.REM']);
    expect(await local.read('CBR20260302000001.REM')).toBe(before);
    await value(
      adapter().registerBoleto({
        reference: 'ch_b',
        amountCents: 100,
        dueDate: '2026-03-10',
        payer: PAYER,
      }),
    );
    expect((await adapter().exchangeFiles({ ...folders(), onReturn: ignore })).remittances).toEqual(
      [{ name: 'CBR20260302000002.REM', fileSequence: 2, boletos: 1 }],
    );
  });
});

describe('Cnab240BoletoAdapter: return files', () => {
  async function registerAndSend(a: Cnab240BoletoAdapter): Promise<void> {
    await value(
      a.registerBoleto({
        reference: 'ch_paid',
        amountCents: 12_345,
        dueDate: '2026-03-20',
        payer: PAYER,
      }),
    );
    await value(
      a.registerBoleto({
        reference: 'ch_rejected',
        amountCents: 500,
        dueDate: '2026-03-20',
        payer: PAYER,
      }),
    );
    await value(
      a.registerBoleto({
        reference: 'ch_expired',
        amountCents: 700,
        dueDate: '2026-03-20',
        payer: PAYER,
      }),
    );
    await a.exchangeFiles({ ...folders(), onReturn: ignore });
  }

  it('turns entrada confirmada, liquidação, rejeição and baixa into slip states and hands every movement to the caller once', async () => {
    // Proves the return path end to end: inbox file → events for the caller → getBoleto → file archived, never read twice.
    const a = adapter();
    await registerAndSend(a);
    await new LocalDropFolder(inboxDir()).write(
      'RET0001.RET',
      writeReturnFile(PROFILE, 1, [
        {
          code: '02',
          nossoNumero: '12345670000000001',
          amountCents: 12_345,
          dueDate: '2026-03-20',
        },
        {
          code: '03',
          nossoNumero: '12345670000000002',
          amountCents: 500,
          dueDate: '2026-03-20',
          reasons: '4547',
        },
        {
          code: '06',
          nossoNumero: '12345670000000001',
          amountCents: 12_345,
          dueDate: '2026-03-20',
          reasons: '06',
          feeCents: 190,
          paidCents: 12_345,
          netCreditCents: 12_155,
          occurredDate: '2026-03-09',
          creditDate: '2026-03-10',
        },
        {
          code: '09',
          nossoNumero: '12345670000000003',
          amountCents: 700,
          dueDate: '2026-03-20',
          reasons: '13',
        },
        { code: '06', nossoNumero: '99999990000000001', amountCents: 1, dueDate: '2026-03-20' },
      ]),
    );
    const events: BoletoReturnEvent[] = [];
    const summary = await a.exchangeFiles({
      ...folders(),
      onReturn: async (e) => void events.push(e),
    });
    expect(summary).toMatchObject({ returnFilesRead: ['RET0001.RET'], unreadable: [], events: 5 });
    expect(
      events.map((e) => [e.id, e.reference, e.return.outcome, e.boleto?.status ?? null]),
    ).toEqual([
      ['1:0001:00001', 'ch_paid', 'registered', 'registered'],
      ['1:0001:00003', 'ch_rejected', 'rejected', 'registered'],
      ['1:0001:00005', 'ch_paid', 'paid', 'paid'],
      ['1:0001:00007', 'ch_expired', 'written_off', 'registered'],
      ['1:0001:00009', null, 'paid', null],
    ]);
    expect(events[2]!.boleto).toMatchObject({
      status: 'paid',
      paidAt: '2026-03-09T03:00:00.000Z',
      amountCents: 12_345,
    });

    expect(await value(a.getBoleto('ch_paid'))).toMatchObject({
      status: 'paid',
      paidAt: '2026-03-09T03:00:00.000Z',
    });
    expect(await a.getRegistration('ch_paid')).toMatchObject({
      status: 'paid',
      paidCents: 12_345,
      netCreditCents: 12_155,
      feeCents: 190,
      paidOn: '2026-03-09',
      creditedOn: '2026-03-10',
    });
    expect(await a.getBoleto('ch_rejected')).toMatchObject({
      ok: false,
      kind: 'rejected',
      message: expect.stringContaining(
        '45 Nome do pagador não informado; 47 Endereço do pagador não informado',
      ),
    });
    expect(await a.getBoleto('ch_expired')).toMatchObject({
      ok: false,
      kind: 'rejected',
      message: expect.stringMatching(/wrote the boleto off/),
    });

    expect(await new LocalDropFolder(inboxDir()).list()).toEqual([]);
    expect(await readdir(join(inboxDir(), 'processed'))).toEqual(['RET0001.RET']);
    expect(
      (await a.exchangeFiles({ ...folders(), onReturn: async (e) => void events.push(e) })).events,
    ).toBe(0);
  });

  it('leaves a return file in the inbox when the caller fails, and hands the same events again on the next run', async () => {
    // Proves at-least-once delivery to the caller: nothing is recorded or archived past a failed handler.
    const a = adapter();
    await registerAndSend(a);
    await new LocalDropFolder(inboxDir()).write(
      'RET0002.RET',
      writeReturnFile(PROFILE, 2, [
        {
          code: '06',
          nossoNumero: '12345670000000001',
          amountCents: 12_345,
          dueDate: '2026-03-20',
          paidCents: 12_345,
          netCreditCents: 12_345,
        },
      ]),
    );
    await expect(
      a.exchangeFiles({ ...folders(), onReturn: () => Promise.reject(new Error('bus down')) }),
    ).rejects.toThrow('bus down');
    expect(await new LocalDropFolder(inboxDir()).list()).toEqual(['RET0002.RET']);
    expect(await value(a.getBoleto('ch_paid'))).toMatchObject({ status: 'registered' });
    const ids: string[] = [];
    await adapter().exchangeFiles({ ...folders(), onReturn: async (e) => void ids.push(e.id) });
    expect(ids).toEqual(['2:0001:00001']);
    expect(await value(a.getBoleto('ch_paid'))).toMatchObject({ status: 'paid' });
  });

  it('moves a file that is not a readable return file to unreadable/ and says why', async () => {
    // Proves that one bad file neither stops the job nor is retried forever.
    const a = adapter();
    await new LocalDropFolder(inboxDir()).write('GARBAGE.RET', 'not a cnab file\r\n');
    const summary = await a.exchangeFiles({ ...folders(), onReturn: ignore });
    expect(summary.unreadable).toEqual([{ name: 'GARBAGE.RET', error: expect.any(String) }]);
    expect(await readdir(join(inboxDir(), 'unreadable'))).toEqual(['GARBAGE.RET']);
  });
});
