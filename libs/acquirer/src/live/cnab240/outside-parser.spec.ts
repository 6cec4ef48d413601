import { existsSync } from 'node:fs';
import { generateRemessaCnab, parseRemessaCnab } from '@banco-br/nodejs-cnab';
import { encodeRecord } from './fields';
import { FILE_HEADER } from './layout';
import { CNAB_EOL, writeRemittance, type RemittanceBoleto } from './remittance';
import { readReturnFile } from './return-file';
import { PROFILE } from './test-fixtures';

// Our files checked with an outside CNAB library: @banco-br/nodejs-cnab, with the field tables of
// @banco-br/cnab_yaml (a generic CNAB 240 cobrança layout written from the Caixa manual, and Banco do
// Brasil overlays that replace the fields BB defines differently). Neither was written from our layout.ts.
//
// The library reads its YAML tables from `./node_modules/@banco-br/cnab_yaml/cnab240/<bank>/<retorno|remessa>/`
// relative to the working directory, and only for return files: a table elsewhere is named with a relative
// path from cnab240/generic/retorno ("../header_arquivo", "../../001/remessa/detalhe_segmento_p").

const YAML_DIR = './node_modules/@banco-br/cnab_yaml/cnab240';

type Parsed = Record<string, string>;

/** One record parsed by the library with the generic table, overlaid with BB's where BB has one. */
function parse(table: string, line: string, bbOverlay: boolean): Parsed {
  const generic = (parseRemessaCnab([table], 240, 'generic', line) as Parsed[] | undefined)?.[0];
  if (generic === undefined) throw new Error(`the library could not parse ${table}`);
  if (!bbOverlay) return generic;
  const bb = (
    parseRemessaCnab([table.replace(/^\.\.\//, '../../001/')], 240, 'generic', line) as
      Parsed[] | undefined
  )?.[0];
  if (bb === undefined) throw new Error(`the library could not parse BB's ${table}`);
  return { ...generic, ...bb };
}

const PAYER = {
  document: '12345678909',
  name: 'Maria Souza',
  address: 'Av Paulista 1000',
  district: 'Bela Vista',
  postalCode: '01310100',
  city: 'Sao Paulo',
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
    amountCents: 9_999_999_999,
    dueDate: '2027-01-31',
    issueDate: '2026-03-02',
    payer: { ...PAYER, document: '12345678000195', name: 'Empresa SA' },
  },
];

beforeAll(() => {
  if (!existsSync(YAML_DIR))
    throw new Error(
      `run jest from the repository root: the library reads ${YAML_DIR} relative to the working directory`,
    );
});

describe('our remittance, parsed by @banco-br/nodejs-cnab with the cnab_yaml tables', () => {
  it('finds our values in the file header, lot header, segments P, Q, R and the trailers', () => {
    // Proves that our positions agree with a layout table written by others, field by field.
    const lines = writeRemittance({
      profile: PROFILE,
      fileSequence: 7,
      generatedAt: new Date('2026-03-02T13:04:05.000Z'),
      boletos: BOLETOS,
    }).split(CNAB_EOL);
    expect(lines.pop()).toBe('');

    expect(parse('../header_arquivo', lines[0]!, true)).toMatchObject({
      codigo_banco: '001',
      lote_servico: '0000',
      tipo_registro: '0',
      codigo_inscricao: '2',
      numero_inscricao: '12345678000195',
      codigo_convenio: '001234567',
      cobranca_cedente: '0014',
      carteira: '17',
      variacao_carteira: '019',
      agencia: '01234',
      agencia_dv: '5',
      conta: '000000098765',
      conta_dv: 'X',
      nome_empresa: 'PAGAMENTOS EXEMPLO LTDA'.padEnd(30),
      codigo_remessa_retorno: '1',
      data_geracao: '02032026',
      hora_geracao: '100405',
      numero_sequencial_arquivo: '000007',
      versao_layout_arquivo: '030',
    });
    expect(parse('../header_lote', lines[1]!, true)).toMatchObject({
      lote_servico: '0001',
      tipo_registro: '1',
      tipo_operacao: 'R',
      tipo_servico: '01',
      versao_layout_lote: '020',
      numero_inscricao: '012345678000195',
      codigo_convenio: '001234567',
      carteira: '17',
      variacao_carteira: '019',
      agencia: '01234',
      conta: '000000098765',
      numero_sequencial_arquivo: '00000007',
      data_geracao: '02032026',
    });

    BOLETOS.forEach((boleto, i) => {
      const [p, q, r] = [lines[2 + i * 3]!, lines[3 + i * 3]!, lines[4 + i * 3]!];
      const dueDate = boleto.dueDate.split('-').reverse().join('');
      expect(parse('../remessa/detalhe_segmento_p', p, true)).toMatchObject({
        codigo_banco: '001',
        lote_servico: '0001',
        tipo_registro: '3',
        numero_sequencial_lote: String(i * 3 + 1).padStart(5, '0'),
        codigo_segmento: 'P',
        codigo_ocorrencia: '01',
        agencia: '01234',
        agencia_dv: '5',
        conta: '000000098765',
        conta_dv: 'X',
        nosso_numero: ('1234567' + String(boleto.nossoNumeroSequence).padStart(10, '0')).padEnd(20),
        codigo_carteira: '7',
        forma_cadastramento: '1',
        numero_documento: boleto.seuNumero.padEnd(15),
        vencimento: dueDate,
        valor_titulo: String(boleto.amountCents).padStart(15, '0'),
        especie: '02',
        aceite: 'N',
        data_emissao: '02032026',
        codigo_juros_mora: '3',
        valor_juros_mora: '0'.repeat(15),
        codigo_desconto_1: '0',
        uso_empresa: boleto.companyTag.toUpperCase().padEnd(25),
        codigo_protesto: '3',
        prazo_protesto: '00',
        codigo_baixa: '1',
        prazo_baixa: '030',
        codigo_moeda: '09',
      });
      const payer = boleto.payer!;
      expect(parse('../remessa/detalhe_segmento_q', q, true)).toMatchObject({
        numero_sequencial_lote: String(i * 3 + 2).padStart(5, '0'),
        codigo_segmento: 'Q',
        codigo_ocorrencia: '01',
        sacado_codigo_inscricao: payer.document.length === 14 ? '2' : '1',
        sacado_numero_inscricao: payer.document.padStart(15, '0'),
        nome: payer.name.toUpperCase().padEnd(40),
        logradouro: payer.address.toUpperCase().padEnd(40),
        bairro: (payer.district ?? '').toUpperCase().padEnd(15),
        cep: payer.postalCode,
        cidade: payer.city.toUpperCase().padEnd(15),
        estado: payer.state,
        sacador_codigo_inscricao: '0',
      });
      expect(parse('../remessa/detalhe_segmento_r', r, false)).toMatchObject({
        numero_sequencial_lote: String(i * 3 + 3).padStart(5, '0'),
        codigo_segmento: 'R',
        codigo_ocorrencia: '01',
        codigo_multa: '0',
        data_multa: '00000000',
        valor_multa: '0'.repeat(15),
      });
    });

    const lotRecords = 2 + 3 * BOLETOS.length;
    expect(parse('../trailer_lote', lines[lines.length - 2]!, true)).toMatchObject({
      lote_servico: '0001',
      tipo_registro: '5',
      qtde_registro_lote: String(lotRecords).padStart(6, '0'),
    });
    expect(parse('../trailer_arquivo', lines[lines.length - 1]!, false)).toMatchObject({
      lote_servico: '9999',
      tipo_registro: '9',
      qtde_lotes: '000001',
      qtde_registros: String(lotRecords + 2).padStart(6, '0'),
    });
  });
});

describe('a return file written by @banco-br/nodejs-cnab with the cnab_yaml tables, read by ours', () => {
  /** One record written by the library from the generic table `table`. */
  function write(table: string, data: Record<string, string | number>): string {
    const line = generateRemessaCnab({ [table]: data }, 240, 'generic') as string | undefined;
    if (line === undefined || line.length !== 240)
      throw new Error(`the library wrote ${String(line?.length)} characters for ${table}`);
    return line;
  }

  it('reads liquidação, entrada rejeitada and baixa with their amounts, dates, fee and reasons', () => {
    // Proves our T/U positions against the library's tables, on a file whose details it wrote.
    const movements = [
      {
        code: '06',
        nossoNumero: '12345670000000001',
        amount: 123.45,
        due: '20032026',
        reasons: '06',
        fee: 1.9,
        paid: 123.45,
        net: 121.55,
        charges: 0,
        occurred: '09032026',
        credited: '10032026',
      },
      {
        code: '03',
        nossoNumero: '12345670000000002',
        amount: 5,
        due: '20032026',
        reasons: '1648',
        fee: 0,
        paid: 0,
        net: 0,
        charges: 0,
        occurred: '10032026',
        credited: '00000000',
      },
      {
        code: '17',
        nossoNumero: '12345670000000003',
        amount: 100,
        due: '01032026',
        reasons: '33',
        fee: 1.9,
        paid: 102.5,
        net: 100.6,
        charges: 2.5,
        occurred: '08032026',
        credited: '10032026',
      },
      {
        code: '09',
        nossoNumero: '12345670000000004',
        amount: 70,
        due: '05012026',
        reasons: '13',
        fee: 0,
        paid: 0,
        net: 0,
        charges: 0,
        occurred: '10032026',
        credited: '00000000',
      },
    ];
    // The library cannot write a file header (its generic table asks for an hour format it does not
    // implement), so that one record is ours; every other record is the library's.
    const lines = [
      encodeRecord(FILE_HEADER, {
        bankCode: '001',
        lot: '0000',
        recordType: '0',
        inscriptionType: '2',
        inscriptionNumber: '12345678000195',
        direction: '2',
        generatedDate: '2026-03-10',
        generatedTime: '060000',
        fileSequence: 42,
      }),
    ];
    lines.push(
      write('../header_lote', {
        codigo_banco: '001',
        lote_servico: '1',
        tipo_operacao: 'T',
        codigo_inscricao: '2',
        numero_inscricao: '12345678000195',
        numero_sequencial_arquivo: '42',
        data_geracao: '10032026',
      }),
    );
    let n = 0;
    for (const m of movements) {
      lines.push(
        write('../retorno/detalhe_segmento_t', {
          codigo_banco: '001',
          lote_servico: '1',
          tipo_registro: '3',
          numero_sequencial_lote: String(++n),
          codigo_segmento: 'T',
          codigo_movimento: m.code,
          nosso_numero: m.nossoNumero,
          codigo_carteira: '7',
          data_vencimento: m.due,
          valor_titulo: m.amount,
          codigo_moeda: '9',
          valor_tarifa: m.fee,
          identificacao_rejeicao: m.reasons,
        }),
      );
      lines.push(
        write('../retorno/detalhe_segmento_u', {
          codigo_banco: '001',
          lote_servico: '1',
          tipo_registro: '3',
          numero_sequencial_registro: String(++n),
          codigo_segmento: 'U',
          codigo_movimento: m.code,
          valor_acrescimos: m.charges,
          valor_pago: m.paid,
          valor_liquido: m.net,
          data_ocorrencia: m.occurred,
          data_credito: m.credited,
          ocorrencia_sacado_data: '00000000',
        }),
      );
    }
    lines.push(
      write('../trailer_lote', {
        codigo_banco: '001',
        lote_servico: '1',
        qtde_registro_lote: String(n + 2),
      }),
    );
    lines.push(
      write('../trailer_arquivo', {
        codigo_banco: '001',
        qtde_lotes: '1',
        qtde_registros: String(n + 4),
      }),
    );

    const read = readReturnFile(lines.join(CNAB_EOL) + CNAB_EOL);
    if (!read.ok) throw new Error(read.error);
    const cents = (reais: number): number => Math.round(reais * 100);
    const iso = (ddmmyyyy: string): string | null =>
      ddmmyyyy === '00000000'
        ? null
        : `${ddmmyyyy.slice(4)}-${ddmmyyyy.slice(2, 4)}-${ddmmyyyy.slice(0, 2)}`;
    expect(read.value.returns.map((r) => r.outcome)).toEqual([
      'paid',
      'rejected',
      'paid',
      'written_off',
    ]);
    read.value.returns.forEach((r, i) => {
      const m = movements[i]!;
      expect(r).toMatchObject({
        movementCode: m.code,
        // The generic table's nosso número is numeric, 20 digits, zero-filled on the left.
        nossoNumero: m.nossoNumero.padStart(20, '0'),
        dueDate: iso(m.due),
        amountCents: cents(m.amount),
        feeCents: cents(m.fee),
        paidCents: cents(m.paid),
        netCreditCents: cents(m.net),
        chargesCents: cents(m.charges),
        occurredOn: iso(m.occurred),
        creditedOn: iso(m.credited),
      });
      expect(r.reasons.map((x) => x.code).join('')).toBe(m.reasons);
    });
    expect(read.value.returns[1]!.reasons.map((x) => x.description)).toEqual([
      'Data de vencimento inválida',
      'CEP inválido',
    ]);
  });
});
