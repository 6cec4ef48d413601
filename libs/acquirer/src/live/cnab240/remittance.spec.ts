import fc from 'fast-check';
import { BOLETO_AMOUNT_CENTS_MAX } from '@pgw/domain';
import { RECORD_LENGTH, toCnabText } from './fields';
import { CNAB_EOL, writeRemittance, type RemittanceBoleto } from './remittance';
import { readCnab240File } from './return-file';
import { PROFILE } from './test-fixtures';

const GENERATED_AT = new Date('2026-03-02T13:04:05.000Z'); // 10:04:05 in Brasília

const PAYER = {
  document: '12345678909',
  name: 'João da Silva Çaçador',
  address: 'Rua das Flores, 123',
  district: 'Centro',
  postalCode: '01310100',
  city: 'São Paulo',
  state: 'SP',
};

const BOLETOS: RemittanceBoleto[] = [
  {
    nossoNumeroSequence: 1,
    seuNumero: '1',
    companyTag: 'ch_first',
    amountCents: 12_345,
    dueDate: '2026-03-10',
    issueDate: '2026-03-02',
    payer: PAYER,
  },
  {
    nossoNumeroSequence: 2,
    seuNumero: '2',
    companyTag: 'ch_second',
    amountCents: 100,
    dueDate: '2026-12-31',
    issueDate: '2026-03-02',
    payer: null,
  },
  {
    nossoNumeroSequence: 9_999_999_999,
    seuNumero: '9999999999',
    companyTag: 'ch_last',
    amountCents: BOLETO_AMOUNT_CENTS_MAX,
    dueDate: '2049-10-13',
    issueDate: '2026-03-02',
    payer: { ...PAYER, document: '12345678000195', name: 'Empresa Pagadora S.A.' },
  },
];

function lines(text: string): string[] {
  expect(text.endsWith(CNAB_EOL)).toBe(true);
  return text.slice(0, -CNAB_EOL.length).split(CNAB_EOL);
}

describe('the CNAB 240 remittance writer', () => {
  it('writes records of exactly 240 characters, each followed by CRLF, in the order 0 1 (3 P Q R)… 5 9', () => {
    // Proves the file's shape: what a bank's validator checks before reading any field.
    const text = writeRemittance({
      profile: PROFILE,
      fileSequence: 7,
      generatedAt: GENERATED_AT,
      boletos: BOLETOS,
    });
    const records = lines(text);
    for (const record of records) {
      expect(record).toHaveLength(RECORD_LENGTH);
      expect(record).not.toMatch(/[\r\n]/);
    }
    const shape = records.map((r) => r.charAt(7) + (r.charAt(7) === '3' ? r.charAt(13) : ''));
    expect(shape).toEqual([
      '0',
      '1',
      '3P',
      '3Q',
      '3R',
      '3P',
      '3Q',
      '3R',
      '3P',
      '3Q',
      '3R',
      '5',
      '9',
    ]);
    expect(/^[\x20-\x7e]*$/.test(text.replace(/\r\n/g, ''))).toBe(true);
  });

  it('reads back every field it wrote: headers, each slip in P, its payer in Q, R, and the trailers', () => {
    // Proves the round trip: every value we put in is where the reader finds it.
    const read = readCnab240File(
      writeRemittance({
        profile: PROFILE,
        fileSequence: 7,
        generatedAt: GENERATED_AT,
        boletos: BOLETOS,
      }),
    );
    if (!read.ok) throw new Error(read.error);
    const { header, lots, trailer } = read.value;
    expect(header).toEqual({
      bankCode: '001',
      lot: '0000',
      recordType: '0',
      inscriptionType: '2',
      inscriptionNumber: '12345678000195',
      agreement: '001234567' + '0014' + '17' + '019', // convênio (9), cobrança cedente, carteira, variação
      agency: '01234',
      agencyDv: '5',
      account: '000000098765',
      accountDv: 'X',
      agencyAccountDv: '',
      companyName: 'PAGAMENTOS EXEMPLO LTDA',
      bankName: 'BANCO DO BRASIL S.A.',
      direction: '1',
      generatedDate: '2026-03-02',
      generatedTime: '100405',
      fileSequence: '000007',
      layoutVersion: '030',
      density: '00000',
      bankReserved: '',
      companyReserved: '',
    });
    expect(lots).toHaveLength(1);
    const lot = lots[0]!;
    expect(lot.header).toMatchObject({
      bankCode: '001',
      lot: '0001',
      recordType: '1',
      operation: 'R',
      service: '01',
      layoutVersion: '020',
      inscriptionType: '2',
      inscriptionNumber: '012345678000195',
      agreement: '001234567' + '0014' + '17' + '019', // convênio (9), cobrança cedente, carteira, variação
      agency: '01234',
      account: '000000098765',
      companyName: 'PAGAMENTOS EXEMPLO LTDA',
      fileSequence: '00000007',
      recordedDate: '2026-03-02',
      creditDate: null,
    });
    expect(lot.details).toHaveLength(BOLETOS.length * 3);
    BOLETOS.forEach((boleto, i) => {
      const [p, q, r] = [lot.details[i * 3]!, lot.details[i * 3 + 1]!, lot.details[i * 3 + 2]!];
      const prefix = (n: number, segment: string) => ({
        bankCode: '001',
        lot: '0001',
        recordType: '3',
        recordNumber: String(n).padStart(5, '0'),
        segment,
        movementCode: '01',
      });
      expect(p.fields).toEqual({
        ...prefix(i * 3 + 1, 'P'),
        agency: '01234',
        agencyDv: '5',
        account: '000000098765',
        accountDv: 'X',
        agencyAccountDv: '',
        nossoNumero: '1234567' + String(boleto.nossoNumeroSequence).padStart(10, '0'),
        walletCode: '7',
        registrationForm: '1',
        documentType: '1',
        issuer: '2',
        distribution: '2',
        seuNumero: boleto.seuNumero,
        dueDate: boleto.dueDate,
        amountCents: boleto.amountCents,
        collectingAgency: '00000',
        collectingAgencyDv: '',
        documentKind: '02',
        acceptance: 'N',
        issueDate: boleto.issueDate,
        interestCode: '3',
        interestDate: null,
        interestCents: 0,
        discount1Code: '0',
        discount1Date: null,
        discount1Cents: 0,
        iofCents: 0,
        rebateCents: 0,
        companyTag: boleto.companyTag.toUpperCase(),
        protestCode: '3',
        protestDays: '00',
        writeOffCode: '1',
        writeOffDays: '030',
        currencyCode: '09',
        contractNumber: '0000000000',
        partialPayment: '',
      });
      const payer = boleto.payer;
      expect(q.fields).toEqual({
        ...prefix(i * 3 + 2, 'Q'),
        payerInscriptionType: payer === null ? '0' : payer.document.length === 14 ? '2' : '1',
        payerInscriptionNumber: (payer?.document ?? '').padStart(15, '0'),
        payerName: toCnabText(payer?.name ?? ''),
        payerAddress: toCnabText(payer?.address ?? ''),
        payerDistrict: toCnabText(payer?.district ?? ''),
        payerPostalCode: payer?.postalCode ?? '00000000',
        payerCity: toCnabText(payer?.city ?? ''),
        payerState: payer?.state ?? '',
        guarantorInscriptionType: '0',
        guarantorInscriptionNumber: '0'.repeat(15),
        guarantorName: '',
        correspondentBank: '000',
        correspondentNossoNumero: '',
      });
      expect(r.fields).toMatchObject({
        ...prefix(i * 3 + 3, 'R'),
        discount2Code: '0',
        discount3Code: '0',
        fineCode: '0',
        fineCents: 0,
        message3: '',
        message4: '',
      });
    });
    expect(lot.details[1]!.fields['payerName']).toBe('JOAO DA SILVA CACADOR');
    expect(lot.trailer).toMatchObject({
      bankCode: '001',
      lot: '0001',
      recordType: '5',
      recordCount: String(2 + 3 * BOLETOS.length).padStart(6, '0'),
    });
    expect(trailer).toEqual({
      bankCode: '001',
      lot: '9999',
      recordType: '9',
      lotCount: '000001',
      recordCount: String(4 + 3 * BOLETOS.length).padStart(6, '0'),
      accountCount: '000000',
    });
  });

  it('leaves the lot trailer blank after its count for Banco do Brasil, and fills the cobrança simples count and sum for a bank that wants them', () => {
    // Proves both trailer forms: BB's (count only, 24–240 blank) and the FEBRABAN totals, summed in cents.
    const bb = lines(
      writeRemittance({
        profile: PROFILE,
        fileSequence: 1,
        generatedAt: GENERATED_AT,
        boletos: BOLETOS,
      }),
    );
    const bbTrailer = bb[bb.length - 2]!;
    expect(bbTrailer.slice(17, 23)).toBe('000011');
    expect(bbTrailer.slice(23)).toBe(' '.repeat(217));
    const withTotals = { ...PROFILE, lotTrailerTotals: true };
    const read = readCnab240File(
      writeRemittance({
        profile: withTotals,
        fileSequence: 1,
        generatedAt: GENERATED_AT,
        boletos: BOLETOS,
      }),
    );
    if (!read.ok) throw new Error(read.error);
    const sum = BOLETOS.reduce((s, b) => s + b.amountCents, 0);
    expect(read.value.lots[0]!.trailer).toMatchObject({
      recordCount: '000011',
      simpleCount: '000003',
      simpleTotalCents: sum,
    });
  });

  it('keeps counts and sums right for any set of slips (fast-check)', () => {
    // Proves the trailers and the round trip of amounts and dates over random batches, big amounts included.
    const boleto = fc.record({
      amountCents: fc.integer({ min: 1, max: BOLETO_AMOUNT_CENTS_MAX }),
      dueDate: fc
        .integer({ min: 0, max: 8000 })
        .map((d) => new Date(Date.UTC(2026, 0, 1 + d)).toISOString().slice(0, 10)),
    });
    fc.assert(
      fc.property(fc.array(boleto, { minLength: 1, maxLength: 40 }), (specs) => {
        const boletos = specs.map((s, i) => ({
          ...s,
          nossoNumeroSequence: i + 1,
          seuNumero: String(i + 1),
          companyTag: `ref_${i}`,
          issueDate: '2026-01-01',
          payer: null,
        }));
        const text = writeRemittance({
          profile: { ...PROFILE, lotTrailerTotals: true },
          fileSequence: 1,
          generatedAt: GENERATED_AT,
          boletos,
        });
        for (const record of lines(text)) expect(record).toHaveLength(RECORD_LENGTH);
        const read = readCnab240File(text);
        if (!read.ok) throw new Error(read.error);
        const lot = read.value.lots[0]!;
        const ps = lot.details.filter((d) => d.segment === 'P');
        expect(ps.map((p) => p.fields['amountCents'])).toEqual(boletos.map((b) => b.amountCents));
        expect(ps.map((p) => p.fields['dueDate'])).toEqual(boletos.map((b) => b.dueDate));
        expect(lot.trailer['simpleTotalCents']).toBe(
          boletos.reduce((s, b) => s + b.amountCents, 0),
        );
        expect(Number(lot.trailer['simpleCount'])).toBe(boletos.length);
        expect(Number(read.value.trailer['recordCount'])).toBe(4 + 3 * boletos.length);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses what cannot be written instead of writing another number', () => {
    // Proves the writer's bounds: a nosso número past the agreement's 10 digits, no slips, a file sequence past 6 digits.
    const one = BOLETOS[0]!;
    expect(() =>
      writeRemittance({
        profile: PROFILE,
        fileSequence: 1,
        generatedAt: GENERATED_AT,
        boletos: [{ ...one, nossoNumeroSequence: 10_000_000_000 }],
      }),
    ).toThrow(RangeError);
    expect(() =>
      writeRemittance({
        profile: PROFILE,
        fileSequence: 1,
        generatedAt: GENERATED_AT,
        boletos: [],
      }),
    ).toThrow(RangeError);
    expect(() =>
      writeRemittance({
        profile: PROFILE,
        fileSequence: 1_000_000,
        generatedAt: GENERATED_AT,
        boletos: [one],
      }),
    ).toThrow(RangeError);
  });
});
