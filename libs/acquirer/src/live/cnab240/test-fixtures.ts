import { bancoDoBrasilProfile, type BankProfile, type Cnab240Beneficiary } from './bank-profile';
import { encodeRecord } from './fields';
import { FILE_HEADER, FILE_TRAILER, LOT_HEADER, LOT_TRAILER, SEGMENT_T, SEGMENT_U } from './layout';

// Test data shared by the CNAB 240 specs: a beneficiary at Banco do Brasil with a 7-digit convênio.

export const BENEFICIARY: Cnab240Beneficiary = {
  cnpj: '12345678000195',
  companyName: 'Pagamentos Exemplo Ltda',
  agency: '1234',
  agencyDv: '5',
  account: '98765',
  accountDv: 'X',
  agreement: '1234567',
  wallet: '17',
  walletVariation: '019',
};

export const PROFILE: BankProfile = bancoDoBrasilProfile(BENEFICIARY);

export interface ReturnMovement {
  code: string;
  nossoNumero: string;
  amountCents: number;
  dueDate: string;
  reasons?: string;
  feeCents?: number;
  paidCents?: number;
  netCreditCents?: number;
  occurredDate?: string;
  creditDate?: string;
}

/** A bank's return file with one T/U pair per movement, written with the layout's own tables. */
export function writeReturnFile(
  profile: BankProfile,
  fileSequence: number,
  movements: readonly ReturnMovement[],
): string {
  const bankCode = profile.bankCode;
  const lines = [
    encodeRecord(FILE_HEADER, {
      bankCode,
      lot: '0000',
      recordType: '0',
      inscriptionType: '2',
      inscriptionNumber: profile.beneficiary.cnpj,
      direction: '2',
      generatedDate: '2026-03-10',
      generatedTime: '060000',
      fileSequence,
    }),
  ];
  lines.push(
    encodeRecord(LOT_HEADER, {
      bankCode,
      lot: '0001',
      recordType: '1',
      operation: 'T',
      service: '01',
      fileSequence,
    }),
  );
  let n = 0;
  for (const m of movements) {
    const prefix = (segment: string) => ({
      bankCode,
      lot: '0001',
      recordType: '3',
      recordNumber: ++n,
      segment,
      movementCode: m.code,
    });
    lines.push(
      encodeRecord(SEGMENT_T, {
        ...prefix('T'),
        nossoNumero: m.nossoNumero,
        dueDate: m.dueDate,
        amountCents: m.amountCents,
        feeCents: m.feeCents ?? 0,
        reasons: m.reasons ?? '',
      }),
    );
    lines.push(
      encodeRecord(SEGMENT_U, {
        ...prefix('U'),
        paidCents: m.paidCents ?? 0,
        netCreditCents: m.netCreditCents ?? 0,
        occurredDate: m.occurredDate ?? '2026-03-10',
        creditDate: m.creditDate ?? null,
      }),
    );
  }
  lines.push(
    encodeRecord(LOT_TRAILER, { bankCode, lot: '0001', recordType: '5', recordCount: n + 2 }),
  );
  lines.push(
    encodeRecord(FILE_TRAILER, {
      bankCode,
      lot: '9999',
      recordType: '9',
      lotCount: 1,
      recordCount: n + 4,
    }),
  );
  return lines.join('\r\n') + '\r\n';
}
