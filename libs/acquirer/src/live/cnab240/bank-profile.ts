// What a bank adds to the FEBRABAN layout. Every bank keeps the standard's positions and fills the parts the
// standard leaves to it: the agreement (convênio) field of the headers, how "nosso número" is composed, the
// wallet code, the slip's "campo livre" in the barcode, the layout version codes it expects. One profile per
// bank; the writer, the reader and the adapter take a profile and know no bank.
//
// The one profile here is Banco do Brasil (001), "convênio de 7 posições", carteira 17: nosso número is the
// 7-digit convênio followed by a 10-digit sequence of ours (17 digits, no check digit), and the campo livre
// is six zeros, the nosso número and the carteira (BB's "Particularidades BB – Leiaute CNAB 240" and its
// boleto specification). Its version codes are the ones BB's own return files carry ('030' file, '020'
// lot); a bank's homologation confirms them.

export interface Cnab240Beneficiary {
  /** CNPJ (14 digits) of the company that issues the slips. */
  cnpj: string;
  companyName: string;
  /** Agency, up to 5 digits, and its check digit. */
  agency: string;
  agencyDv: string;
  /** Current account, up to 12 digits, and its check digit. */
  account: string;
  accountDv: string;
  /** The agreement (convênio) number the bank gave. */
  agreement: string;
  /** The wallet (carteira) and its variation, as the agreement names them. */
  wallet: string;
  walletVariation: string;
}

export interface BankProfile {
  bankCode: string;
  bankName: string;
  layoutVersionFile: string;
  layoutVersionLot: string;
  beneficiary: Cnab240Beneficiary;
  /** Positions 33–52 of the file header and 34–53 of the lot header. */
  agreementField: string;
  /** The largest sequence a nosso número can carry. */
  nossoNumeroSequenceMax: number;
  /** The nosso número as segment P carries it (positions 38–57). */
  nossoNumero(sequence: number): string;
  /** Our sequence back from a nosso número of segment T, or null when it is not one of ours. */
  sequenceOf(nossoNumero: string): number | null;
  /** The 25 digits of the barcode that the bank defines. */
  campoLivre(sequence: number): string;
  /** Segment P, position 58. */
  walletCode: string;
  /** Segment P, position 107–108 (espécie do título). */
  documentKind: string;
  /** Segment P, 224–227: write the slip off (and stop accepting payment) this many days after its due date. */
  writeOffAfterDays: number;
  /** True when the bank wants the cobrança simples count and sum in a remittance's lot trailer. */
  lotTrailerTotals: boolean;
  /** The remittance file's name: the bank's naming rule, with our file sequence in it. */
  remittanceFileName(sequence: number, generatedDate: string): string;
}

const BB_NOSSO_NUMERO_SEQUENCE_DIGITS = 10;

/** Banco do Brasil, convênio of 7 digits, carteira 17 (see the header of this file). */
export function bancoDoBrasilProfile(beneficiary: Cnab240Beneficiary): BankProfile {
  if (!/^\d{7}$/.test(beneficiary.agreement))
    throw new RangeError('a Banco do Brasil convênio of this profile has 7 digits');
  if (!/^\d{2}$/.test(beneficiary.wallet) || !/^\d{3}$/.test(beneficiary.walletVariation))
    throw new RangeError('carteira is 2 digits and variação 3');
  if (!/^\d{14}$/.test(beneficiary.cnpj)) throw new RangeError('cnpj must be 14 digits');
  const sequenceMax = 10 ** BB_NOSSO_NUMERO_SEQUENCE_DIGITS - 1;
  const nossoNumero = (sequence: number): string => {
    if (!Number.isSafeInteger(sequence) || sequence < 1 || sequence > sequenceMax)
      throw new RangeError(`nosso número sequence must be in 1..${sequenceMax}`);
    return beneficiary.agreement + String(sequence).padStart(BB_NOSSO_NUMERO_SEQUENCE_DIGITS, '0');
  };
  return {
    bankCode: '001',
    bankName: 'BANCO DO BRASIL S.A.',
    layoutVersionFile: '030',
    layoutVersionLot: '020',
    beneficiary,
    // BB: convênio (9), '0014' (cobrança cedente), carteira (2), variação (3), 2 reserved positions.
    agreementField:
      beneficiary.agreement.padStart(9, '0') +
      '0014' +
      beneficiary.wallet +
      beneficiary.walletVariation +
      '  ',
    nossoNumeroSequenceMax: sequenceMax,
    nossoNumero,
    sequenceOf(value: string): number | null {
      const m = /^(\d{7})(\d{10})$/.exec(value.trim());
      if (m === null || m[1] !== beneficiary.agreement) return null;
      return Number(m[2]);
    },
    campoLivre: (sequence: number): string => '000000' + nossoNumero(sequence) + beneficiary.wallet,
    // Carteira 17 is registered simple collection, code 7 in BB's segment P and T.
    walletCode: beneficiary.wallet.slice(-1),
    documentKind: '02',
    writeOffAfterDays: 30,
    lotTrailerTotals: false,
    remittanceFileName: (sequence: number, generatedDate: string): string =>
      `CBR${generatedDate.replace(/-/g, '')}${String(sequence).padStart(6, '0')}.REM`,
  };
}
