import { readReturnFile } from './return-file';

// Return files written here field by field from the FEBRABAN CNAB 240 tables (segments T and U, notes C044
// and C047), with positions typed in from the standard, not taken from layout.ts: the reader is checked
// against the document, not against itself.

type Put = readonly [from: number, value: string];

/** A 240-character record with each value at its 1-based position; blanks elsewhere. */
function record(puts: readonly Put[]): string {
  const chars = Array<string>(240).fill(' ');
  for (const [from, value] of puts) {
    if (from - 1 + value.length > 240) throw new Error(`value at ${from} runs past 240`);
    for (let i = 0; i < value.length; i++) chars[from - 1 + i] = value[i]!;
  }
  return chars.join('');
}

const z = (value: number, size: number): string => String(value).padStart(size, '0');

interface Movement {
  code: string;
  nossoNumero: string;
  amountCents: number;
  dueDate: string; // DDMMAAAA
  reasons?: string;
  feeCents?: number;
  chargesCents?: number;
  discountCents?: number;
  paidCents?: number;
  netCents?: number;
  otherExpensesCents?: number;
  occurred?: string;
  credited?: string;
}

function returnFile(
  movements: readonly Movement[],
  options: { trailerRecords?: number } = {},
): string {
  const lines: string[] = [];
  // File header: bank 1–3, lot 0000, type 0, CNPJ type 18 and number 19–32, agency 53–57, account 59–70,
  // company 73–102, bank name 103–132, 143 '2' (retorno), date 144–151, time 152–157, NSA 158–163, version 164–166.
  lines.push(
    record([
      [1, '001'],
      [4, '0000'],
      [8, '0'],
      [18, '2'],
      [19, '12345678000195'],
      [33, '0012345670014170019'],
      [53, '01234'],
      [58, '5'],
      [59, z(98765, 12)],
      [71, 'X'],
      [73, 'PAGAMENTOS EXEMPLO LTDA'],
      [103, 'BANCO DO BRASIL S.A.'],
      [143, '2'],
      [144, '10032026'],
      [152, '060000'],
      [158, '000042'],
      [164, '030'],
      [167, '00000'],
    ]),
  );
  // Lot header: 9 'T' (retorno), 10–11 '01' cobrança, 14–16 version, 184–191 retorno number, 192–199 date.
  lines.push(
    record([
      [1, '001'],
      [4, '0001'],
      [8, '1'],
      [9, 'T'],
      [10, '01'],
      [14, '020'],
      [18, '2'],
      [19, '012345678000195'],
      [54, '01234'],
      [60, z(98765, 12)],
      [74, 'PAGAMENTOS EXEMPLO LTDA'],
      [184, '00000042'],
      [192, '10032026'],
      [200, '00000000'],
    ]),
  );
  let n = 0;
  for (const m of movements) {
    // Segment T: 16–17 movement, 38–57 nosso número, 58 carteira, 59–73 número do documento, 74–81 due date,
    // 82–96 nominal value, 97–99 collecting bank, 106–130 company's id, 131–132 currency, 199–213 fee, 214–223 reasons.
    lines.push(
      record([
        [1, '001'],
        [4, '0001'],
        [8, '3'],
        [9, z(++n, 5)],
        [14, 'T'],
        [16, m.code],
        [18, '01234'],
        [23, '5'],
        [24, z(98765, 12)],
        [36, 'X'],
        [38, m.nossoNumero],
        [58, '7'],
        [59, m.nossoNumero.slice(-10)],
        [74, m.dueDate],
        [82, z(m.amountCents, 15)],
        [97, '001'],
        [100, '02085'],
        [106, 'CH_TAG'],
        [131, '09'],
        [133, '1'],
        [134, z(12345678909, 15)],
        [149, 'JOAO DA SILVA'],
        [199, z(m.feeCents ?? 0, 15)],
        [214, m.reasons ?? ''],
      ]),
    );
    // Segment U: 18–32 interest/fine, 33–47 discount, 48–62 rebate, 63–77 IOF, 78–92 paid, 93–107 net credit,
    // 108–122 other expenses, 123–137 other credits, 138–145 date of the movement, 146–153 date of credit.
    lines.push(
      record([
        [1, '001'],
        [4, '0001'],
        [8, '3'],
        [9, z(++n, 5)],
        [14, 'U'],
        [16, m.code],
        [18, z(m.chargesCents ?? 0, 15)],
        [33, z(m.discountCents ?? 0, 15)],
        [48, z(0, 15)],
        [63, z(0, 15)],
        [78, z(m.paidCents ?? 0, 15)],
        [93, z(m.netCents ?? 0, 15)],
        [108, z(m.otherExpensesCents ?? 0, 15)],
        [123, z(0, 15)],
        [138, m.occurred ?? '10032026'],
        [146, m.credited ?? '00000000'],
        [166, z(0, 15)],
        [211, '000'],
      ]),
    );
  }
  // Lot trailer: 18–23 records in the lot. File trailer: 18–23 lots, 24–29 records.
  lines.push(
    record([
      [1, '001'],
      [4, '0001'],
      [8, '5'],
      [18, z(n + 2, 6)],
    ]),
  );
  lines.push(
    record([
      [1, '001'],
      [4, '9999'],
      [8, '9'],
      [18, z(1, 6)],
      [24, z(options.trailerRecords ?? n + 4, 6)],
    ]),
  );
  return lines.join('\r\n') + '\r\n';
}

const NN = (sequence: number): string => '1234567' + z(sequence, 10);

const MOVEMENTS: Movement[] = [
  { code: '02', nossoNumero: NN(1), amountCents: 12_345, dueDate: '20032026' },
  { code: '03', nossoNumero: NN(2), amountCents: 500, dueDate: '01012020', reasons: '1648' },
  {
    code: '06',
    nossoNumero: NN(3),
    amountCents: 12_345,
    dueDate: '20032026',
    reasons: '06',
    feeCents: 190,
    paidCents: 12_345,
    netCents: 12_155,
    occurred: '09032026',
    credited: '10032026',
  },
  { code: '09', nossoNumero: NN(4), amountCents: 7_000, dueDate: '05012026', reasons: '13' },
  {
    code: '17',
    nossoNumero: NN(5),
    amountCents: 10_000,
    dueDate: '01022026',
    reasons: '33',
    feeCents: 190,
    chargesCents: 250,
    paidCents: 10_250,
    netCents: 10_060,
    occurred: '08032026',
    credited: '10032026',
  },
  {
    code: '28',
    nossoNumero: NN(6),
    amountCents: 3_000,
    dueDate: '20032026',
    reasons: '02',
    feeCents: 150,
  },
];

describe('the CNAB 240 return file reader', () => {
  it('reads entrada confirmada, rejeitada, liquidação, baixa, liquidação após baixa and a tariff debit into our outcomes', () => {
    // Proves the mapping of movement codes (C044) and their reasons (C047) to registered/rejected/paid/written_off.
    const read = readReturnFile(returnFile(MOVEMENTS));
    if (!read.ok) throw new Error(read.error);
    expect(read.value).toMatchObject({
      bankCode: '001',
      fileSequence: 42,
      generatedDate: '2026-03-10',
    });
    const [confirmed, rejected, paid, writtenOff, paidLate, tariff] = read.value.returns;
    expect(read.value.returns).toHaveLength(6);

    expect(confirmed).toMatchObject({
      id: '42:0001:00001',
      outcome: 'registered',
      movementCode: '02',
      nossoNumero: NN(1),
      amountCents: 12_345,
      dueDate: '2026-03-20',
      reasons: [],
    });

    expect(rejected).toMatchObject({
      outcome: 'rejected',
      movementCode: '03',
      movementDescription: 'Entrada rejeitada',
      nossoNumero: NN(2),
      dueDate: '2020-01-01',
    });
    expect(rejected!.reasons).toEqual([
      { code: '16', description: 'Data de vencimento inválida' },
      { code: '48', description: 'CEP inválido' },
    ]);

    expect(paid).toEqual({
      id: '42:0001:00005',
      outcome: 'paid',
      movementCode: '06',
      movementDescription: 'Liquidação',
      nossoNumero: NN(3),
      seuNumero: NN(3).slice(-10),
      companyTag: 'CH_TAG',
      dueDate: '2026-03-20',
      amountCents: 12_345,
      reasons: [{ code: '06', description: 'Por meio eletrônico' }],
      feeCents: 190,
      paidCents: 12_345,
      netCreditCents: 12_155,
      chargesCents: 0,
      discountCents: 0,
      rebateCents: 0,
      otherExpensesCents: 0,
      otherCreditsCents: 0,
      occurredOn: '2026-03-09',
      creditedOn: '2026-03-10',
    });

    expect(writtenOff).toMatchObject({
      outcome: 'written_off',
      movementCode: '09',
      reasons: [{ code: '13', description: 'Decurso prazo - banco' }],
    });
    expect(paidLate).toMatchObject({
      outcome: 'paid',
      movementCode: '17',
      paidCents: 10_250,
      chargesCents: 250,
      netCreditCents: 10_060,
      feeCents: 190,
      occurredOn: '2026-03-08',
    });
    expect(paidLate!.reasons).toEqual([
      { code: '33', description: 'Liquidação na internet (home banking)' },
    ]);
    expect(tariff).toMatchObject({ outcome: 'other', movementCode: '28', feeCents: 150 });
  });

  it('keeps a bank code it does not know, described as such, instead of dropping the movement', () => {
    // Proves that bank-specific codes survive: a movement '44' and a reason 'A9'.
    const read = readReturnFile(
      returnFile([
        { code: '44', nossoNumero: NN(7), amountCents: 100, dueDate: '20032026', reasons: 'A9' },
      ]),
    );
    if (!read.ok) throw new Error(read.error);
    expect(read.value.returns[0]).toMatchObject({
      outcome: 'other',
      movementCode: '44',
      reasons: [{ code: 'A9' }],
    });
    expect(read.value.returns[0]!.movementDescription).toMatch(/não documentado/);
  });

  it('accepts LF line ends and records whose trailing blanks a transfer tool stripped', () => {
    // Proves tolerance of what file transfers do to text files, without losing a field.
    const text = returnFile(MOVEMENTS)
      .split('\r\n')
      .map((l) => l.trimEnd())
      .join('\n');
    const read = readReturnFile(text);
    if (!read.ok) throw new Error(read.error);
    expect(read.value.returns.map((r) => r.outcome)).toEqual([
      'registered',
      'rejected',
      'paid',
      'written_off',
      'paid',
      'other',
    ]);
  });

  it('refuses a malformed file with the reason: wrong trailer count, a long line, T without U, an impossible date, a remittance', () => {
    // Proves that nothing from a damaged or foreign file is believed.
    expect(readReturnFile(returnFile(MOVEMENTS, { trailerRecords: 99 }))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/counts 000099 records/),
    });
    const good = returnFile(MOVEMENTS).split('\r\n');
    const longLine = [...good];
    longLine[2] = longLine[2] + 'X';
    expect(readReturnFile(longLine.join('\r\n'))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/more than 240/),
    });
    const withoutU = returnFile([MOVEMENTS[0]!]).split('\r\n');
    withoutU.splice(3, 1);
    withoutU[3] = withoutU[3]!.slice(0, 17) + '000003' + withoutU[3]!.slice(23);
    withoutU[4] = withoutU[4]!.slice(0, 23) + '000005' + withoutU[4]!.slice(29);
    expect(readReturnFile(withoutU.join('\r\n'))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/without its segment U/),
    });
    expect(readReturnFile(returnFile([{ ...MOVEMENTS[0]!, dueDate: '31022026' }]))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not a calendar date/),
    });
    const remittance = good
      .map((l, i) => (i === 0 ? l.slice(0, 142) + '1' + l.slice(143) : l))
      .join('\r\n');
    expect(readReturnFile(remittance)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not a return file/),
    });
    expect(readReturnFile('')).toMatchObject({ ok: false });
  });
});
