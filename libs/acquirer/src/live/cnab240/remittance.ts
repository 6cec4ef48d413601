import type { BoletoPayer } from '../../port';
import type { BankProfile } from './bank-profile';
import { encodeRecord } from './fields';
import {
  FILE_HEADER,
  FILE_TRAILER,
  LOT_HEADER,
  LOT_TRAILER,
  LOT_TRAILER_COUNT_ONLY,
  SEGMENT_P,
  SEGMENT_Q,
  SEGMENT_R,
} from './layout';

// The remittance (remessa) file: one file header, one cobrança lot (header, segments P, Q and R per slip,
// trailer), one file trailer; 240 characters a record, CRLF after each.

export const CNAB_EOL = '\r\n';
/** Segments per slip: P, Q and R. */
const SEGMENTS_PER_BOLETO = 3;
/**
 * The record number within a lot has 5 digits (99,999 records, the lot's header and trailer not counted),
 * so one lot holds at most 33,333 slips of three segments; 30,000 keeps a margin and is far more than a
 * day's registrations here. The adapter puts the rest in the next file.
 */
export const REMITTANCE_BOLETOS_MAX = 30_000;
/** File sequence (NSA, 6 digits in the file header). */
export const FILE_SEQUENCE_MAX = 999_999;

export interface RemittanceBoleto {
  /** Our nosso número sequence: the bank profile turns it into the nosso número. */
  nossoNumeroSequence: number;
  /** Número do documento (P 63–77), up to 15 characters. */
  seuNumero: string;
  /** Identificação do título na empresa (P 196–220), up to 25 characters: the bank returns it in T 106–130. */
  companyTag: string;
  amountCents: number;
  /** YYYY-MM-DD. */
  dueDate: string;
  /** YYYY-MM-DD. */
  issueDate: string;
  /** Banks refuse a registration without the payer's name, document and address (reasons 45–48). */
  payer: BoletoPayer | null;
}

export interface RemittanceInput {
  profile: BankProfile;
  fileSequence: number;
  generatedAt: Date;
  boletos: readonly RemittanceBoleto[];
}

// Brazil has kept UTC−3 all year since 2019: the bank reads the generation date and time as Brasília time.
const BRASILIA_OFFSET_MS = -3 * 60 * 60 * 1000;

function brasilia(at: Date): { date: string; time: string } {
  const iso = new Date(at.getTime() + BRASILIA_OFFSET_MS).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 19).replace(/:/g, '') };
}

/** The remittance file's text. Throws RangeError on input that cannot be written (the adapter validates first). */
export function writeRemittance(input: RemittanceInput): string {
  const { profile, boletos } = input;
  const b = profile.beneficiary;
  if (
    !Number.isSafeInteger(input.fileSequence) ||
    input.fileSequence < 1 ||
    input.fileSequence > FILE_SEQUENCE_MAX
  ) {
    throw new RangeError(`file sequence must be in 1..${FILE_SEQUENCE_MAX}`);
  }
  if (boletos.length < 1 || boletos.length > REMITTANCE_BOLETOS_MAX)
    throw new RangeError(`a remittance carries 1..${REMITTANCE_BOLETOS_MAX} slips`);
  const generated = brasilia(input.generatedAt);
  const account = {
    agency: b.agency,
    agencyDv: b.agencyDv,
    account: b.account,
    accountDv: b.accountDv,
    agencyAccountDv: null,
  };
  const lines: string[] = [];
  lines.push(
    encodeRecord(FILE_HEADER, {
      bankCode: profile.bankCode,
      lot: '0000',
      recordType: '0',
      inscriptionType: '2',
      inscriptionNumber: b.cnpj,
      agreement: profile.agreementField,
      ...account,
      companyName: b.companyName,
      bankName: profile.bankName,
      direction: '1',
      generatedDate: generated.date,
      generatedTime: generated.time,
      fileSequence: input.fileSequence,
      layoutVersion: profile.layoutVersionFile,
      density: '0',
    }),
  );
  const lot = '0001';
  lines.push(
    encodeRecord(LOT_HEADER, {
      bankCode: profile.bankCode,
      lot,
      recordType: '1',
      operation: 'R',
      service: '01',
      layoutVersion: profile.layoutVersionLot,
      inscriptionType: '2',
      inscriptionNumber: b.cnpj,
      agreement: profile.agreementField,
      ...account,
      companyName: b.companyName,
      fileSequence: input.fileSequence,
      recordedDate: generated.date,
    }),
  );
  let recordNumber = 0;
  let totalCents = 0;
  for (const boleto of boletos) {
    const prefix = (segment: string) => ({
      bankCode: profile.bankCode,
      lot,
      recordType: '3',
      recordNumber: ++recordNumber,
      segment,
      movementCode: '01',
    });
    totalCents += boleto.amountCents;
    lines.push(
      encodeRecord(SEGMENT_P, {
        ...prefix('P'),
        ...account,
        nossoNumero: profile.nossoNumero(boleto.nossoNumeroSequence),
        walletCode: profile.walletCode,
        registrationForm: '1',
        documentType: '1',
        issuer: '2', // we issue the slip: its barcode is ours from the moment it is registered here
        distribution: '2',
        seuNumero: boleto.seuNumero,
        dueDate: boleto.dueDate,
        amountCents: boleto.amountCents,
        collectingAgency: '0',
        documentKind: profile.documentKind,
        acceptance: 'N',
        issueDate: boleto.issueDate,
        interestCode: '3', // isento: the gateway charges no late interest
        discount1Code: '0',
        companyTag: boleto.companyTag,
        protestCode: '3', // não protestar
        protestDays: '0',
        writeOffCode: '1',
        writeOffDays: profile.writeOffAfterDays,
        currencyCode: '09',
        contractNumber: '0',
      }),
    );
    const payer = boleto.payer;
    lines.push(
      encodeRecord(SEGMENT_Q, {
        ...prefix('Q'),
        payerInscriptionType: payer === null ? '0' : payer.document.length === 14 ? '2' : '1',
        payerInscriptionNumber: payer?.document ?? null,
        payerName: payer?.name ?? null,
        payerAddress: payer?.address ?? null,
        payerDistrict: payer?.district ?? null,
        payerPostalCode: payer?.postalCode ?? null,
        payerCity: payer?.city ?? null,
        payerState: payer?.state ?? null,
        guarantorInscriptionType: '0',
      }),
    );
    lines.push(
      encodeRecord(SEGMENT_R, {
        ...prefix('R'),
        discount2Code: '0',
        discount3Code: '0',
        fineCode: '0',
      }),
    );
  }
  const lotRecords = 2 + boletos.length * SEGMENTS_PER_BOLETO;
  lines.push(
    profile.lotTrailerTotals
      ? encodeRecord(LOT_TRAILER, {
          bankCode: profile.bankCode,
          lot,
          recordType: '5',
          recordCount: lotRecords,
          simpleCount: boletos.length,
          simpleTotalCents: totalCents,
        })
      : encodeRecord(LOT_TRAILER_COUNT_ONLY, {
          bankCode: profile.bankCode,
          lot,
          recordType: '5',
          recordCount: lotRecords,
        }),
  );
  lines.push(
    encodeRecord(FILE_TRAILER, {
      bankCode: profile.bankCode,
      lot: '9999',
      recordType: '9',
      lotCount: 1,
      recordCount: lotRecords + 2,
    }),
  );
  return lines.join(CNAB_EOL) + CNAB_EOL;
}
