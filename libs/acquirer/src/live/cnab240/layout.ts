import { recordLayout } from './fields';

// The records of a FEBRABAN CNAB 240 "cobrança" file, as the "Layout Padrão FEBRABAN 240 posições",
// version 10 (10.x, cobrança service '01') numbers them. Positions are 1-based and inclusive, as in the
// standard's tables. A bank's own layout keeps these positions and fills some of the ones the standard
// leaves to the bank (the agreement code in the headers, the "nosso número" composition, reserved areas):
// those choices live in the bank profile (bank-profile.ts), not here.

/** Record type (position 8). */
export const RECORD_TYPE = {
  fileHeader: '0',
  lotHeader: '1',
  detail: '3',
  lotTrailer: '5',
  fileTrailer: '9',
} as const;

export const FILE_HEADER = recordLayout('file header', [
  ['bankCode', 1, 3, 'num'],
  ['lot', 4, 7, 'num'], // '0000'
  ['recordType', 8, 8, 'num'], // '0'
  ['reserved1', 9, 17, 'blank'],
  ['inscriptionType', 18, 18, 'num'], // 1 CPF, 2 CNPJ
  ['inscriptionNumber', 19, 32, 'num'],
  ['agreement', 33, 52, 'alpha'], // convênio: the bank defines its layout
  ['agency', 53, 57, 'num'],
  ['agencyDv', 58, 58, 'alpha'],
  ['account', 59, 70, 'num'],
  ['accountDv', 71, 71, 'alpha'],
  ['agencyAccountDv', 72, 72, 'alpha'],
  ['companyName', 73, 102, 'alpha'],
  ['bankName', 103, 132, 'alpha'],
  ['reserved2', 133, 142, 'blank'],
  ['direction', 143, 143, 'num'], // 1 remessa, 2 retorno
  ['generatedDate', 144, 151, 'date'],
  ['generatedTime', 152, 157, 'num'], // HHMMSS
  ['fileSequence', 158, 163, 'num'], // NSA: one per file, never reused
  ['layoutVersion', 164, 166, 'num'],
  ['density', 167, 171, 'num'],
  ['bankReserved', 172, 191, 'alpha'],
  ['companyReserved', 192, 211, 'alpha'],
  ['reserved3', 212, 240, 'blank'],
]);

export const LOT_HEADER = recordLayout('lot header', [
  ['bankCode', 1, 3, 'num'],
  ['lot', 4, 7, 'num'],
  ['recordType', 8, 8, 'num'], // '1'
  ['operation', 9, 9, 'alpha'], // R remessa, T retorno
  ['service', 10, 11, 'num'], // 01 cobrança
  ['reserved1', 12, 13, 'blank'],
  ['layoutVersion', 14, 16, 'num'],
  ['reserved2', 17, 17, 'blank'],
  ['inscriptionType', 18, 18, 'num'],
  ['inscriptionNumber', 19, 33, 'num'],
  ['agreement', 34, 53, 'alpha'],
  ['agency', 54, 58, 'num'],
  ['agencyDv', 59, 59, 'alpha'],
  ['account', 60, 71, 'num'],
  ['accountDv', 72, 72, 'alpha'],
  ['agencyAccountDv', 73, 73, 'alpha'],
  ['companyName', 74, 103, 'alpha'],
  ['message1', 104, 143, 'alpha'],
  ['message2', 144, 183, 'alpha'],
  ['fileSequence', 184, 191, 'num'], // número remessa/retorno
  ['recordedDate', 192, 199, 'date'],
  ['creditDate', 200, 207, 'date'],
  ['reserved3', 208, 240, 'blank'],
]);

/** Positions 1–17, the same on every detail segment. */
const DETAIL_PREFIX = [
  ['bankCode', 1, 3, 'num'],
  ['lot', 4, 7, 'num'],
  ['recordType', 8, 8, 'num'], // '3'
  ['recordNumber', 9, 13, 'num'], // sequence within the lot, from 1
  ['segment', 14, 14, 'alpha'],
  ['reserved0', 15, 15, 'blank'],
  ['movementCode', 16, 17, 'num'],
] as const;

/** Segment P: the slip itself (remessa, mandatory). */
export const SEGMENT_P = recordLayout('segment P', [
  ...DETAIL_PREFIX,
  ['agency', 18, 22, 'num'],
  ['agencyDv', 23, 23, 'alpha'],
  ['account', 24, 35, 'num'],
  ['accountDv', 36, 36, 'alpha'],
  ['agencyAccountDv', 37, 37, 'alpha'],
  ['nossoNumero', 38, 57, 'alpha'], // the bank defines its composition (and whether digits or text)
  ['walletCode', 58, 58, 'num'], // carteira: 1 simples, …
  ['registrationForm', 59, 59, 'num'], // 1 com cadastramento (registrada)
  ['documentType', 60, 60, 'alpha'], // 1 tradicional, 2 escritural
  ['issuer', 61, 61, 'num'], // 1 banco emite, 2 cliente emite
  ['distribution', 62, 62, 'alpha'], // 1 banco distribui, 2 cliente distribui
  ['seuNumero', 63, 77, 'alpha'], // número do documento de cobrança
  ['dueDate', 78, 85, 'date'],
  ['amountCents', 86, 100, 'cents'],
  ['collectingAgency', 101, 105, 'num'], // zeros: the bank chooses
  ['collectingAgencyDv', 106, 106, 'alpha'],
  ['documentKind', 107, 108, 'num'], // espécie: 02 DM, 04 DS, 17 RC, 99 outros …
  ['acceptance', 109, 109, 'alpha'], // A / N
  ['issueDate', 110, 117, 'date'],
  ['interestCode', 118, 118, 'num'], // 1 valor por dia, 2 taxa mensal, 3 isento
  ['interestDate', 119, 126, 'date'],
  ['interestCents', 127, 141, 'cents'],
  ['discount1Code', 142, 142, 'num'],
  ['discount1Date', 143, 150, 'date'],
  ['discount1Cents', 151, 165, 'cents'],
  ['iofCents', 166, 180, 'cents'],
  ['rebateCents', 181, 195, 'cents'],
  ['companyTag', 196, 220, 'alpha'], // identificação do título na empresa: returned in segment T
  ['protestCode', 221, 221, 'num'], // 3 não protestar
  ['protestDays', 222, 223, 'num'],
  ['writeOffCode', 224, 224, 'num'], // 1 baixar/devolver, 2 não baixar
  ['writeOffDays', 225, 227, 'num'],
  ['currencyCode', 228, 229, 'num'], // 09 real
  ['contractNumber', 230, 239, 'num'],
  ['partialPayment', 240, 240, 'alpha'],
]);

/** Segment Q: the payer (remessa, mandatory). */
export const SEGMENT_Q = recordLayout('segment Q', [
  ...DETAIL_PREFIX,
  ['payerInscriptionType', 18, 18, 'num'], // 1 CPF, 2 CNPJ
  ['payerInscriptionNumber', 19, 33, 'num'],
  ['payerName', 34, 73, 'alpha'],
  ['payerAddress', 74, 113, 'alpha'],
  ['payerDistrict', 114, 128, 'alpha'],
  ['payerPostalCode', 129, 136, 'num'], // CEP (5) and its suffix (3)
  ['payerCity', 137, 151, 'alpha'],
  ['payerState', 152, 153, 'alpha'],
  ['guarantorInscriptionType', 154, 154, 'num'],
  ['guarantorInscriptionNumber', 155, 169, 'num'],
  ['guarantorName', 170, 209, 'alpha'],
  ['correspondentBank', 210, 212, 'num'],
  ['correspondentNossoNumero', 213, 232, 'alpha'],
  ['reserved1', 233, 240, 'blank'],
]);

/** Segment R: discounts 2 and 3, fine, messages (remessa, optional in the standard; always sent here). */
export const SEGMENT_R = recordLayout('segment R', [
  ...DETAIL_PREFIX,
  ['discount2Code', 18, 18, 'num'],
  ['discount2Date', 19, 26, 'date'],
  ['discount2Cents', 27, 41, 'cents'],
  ['discount3Code', 42, 42, 'num'],
  ['discount3Date', 43, 50, 'date'],
  ['discount3Cents', 51, 65, 'cents'],
  ['fineCode', 66, 66, 'num'], // 0 sem multa, 1 valor fixo, 2 percentual
  ['fineDate', 67, 74, 'date'],
  ['fineCents', 75, 89, 'cents'],
  ['payerInfo', 90, 99, 'alpha'],
  ['message3', 100, 139, 'alpha'],
  ['message4', 140, 179, 'alpha'],
  ['reserved1', 180, 199, 'blank'],
  ['payerOccurrenceCode', 200, 207, 'num'],
  ['debitBank', 208, 210, 'num'],
  ['debitAgency', 211, 215, 'num'],
  ['debitAgencyDv', 216, 216, 'alpha'],
  ['debitAccount', 217, 228, 'num'],
  ['debitAccountDv', 229, 229, 'alpha'],
  ['debitAgencyAccountDv', 230, 230, 'alpha'],
  ['debitNotice', 231, 231, 'num'],
  ['reserved2', 232, 240, 'blank'],
]);

/** Segment T: the slip's state at the bank (retorno). */
export const SEGMENT_T = recordLayout('segment T', [
  ...DETAIL_PREFIX,
  ['agency', 18, 22, 'num'],
  ['agencyDv', 23, 23, 'alpha'],
  ['account', 24, 35, 'num'],
  ['accountDv', 36, 36, 'alpha'],
  ['agencyAccountDv', 37, 37, 'alpha'],
  ['nossoNumero', 38, 57, 'alpha'],
  ['walletCode', 58, 58, 'num'],
  ['seuNumero', 59, 73, 'alpha'],
  ['dueDate', 74, 81, 'date'],
  ['amountCents', 82, 96, 'cents'],
  ['collectingBank', 97, 99, 'num'],
  ['collectingAgency', 100, 104, 'num'],
  ['collectingAgencyDv', 105, 105, 'alpha'],
  ['companyTag', 106, 130, 'alpha'],
  ['currencyCode', 131, 132, 'num'],
  ['payerInscriptionType', 133, 133, 'num'],
  ['payerInscriptionNumber', 134, 148, 'num'],
  ['payerName', 149, 188, 'alpha'],
  ['contractNumber', 189, 198, 'alpha'],
  ['feeCents', 199, 213, 'cents'], // valor da tarifa / custas
  ['reasons', 214, 223, 'alpha'], // motivo da ocorrência: up to five 2-character codes
  ['reserved1', 224, 240, 'blank'],
]);

/** Segment U: the amounts and dates of what happened (retorno). */
export const SEGMENT_U = recordLayout('segment U', [
  ...DETAIL_PREFIX,
  ['chargesCents', 18, 32, 'cents'], // juros / multa / encargos
  ['discountCents', 33, 47, 'cents'],
  ['rebateCents', 48, 62, 'cents'],
  ['iofCents', 63, 77, 'cents'],
  ['paidCents', 78, 92, 'cents'], // valor pago pelo pagador
  ['netCreditCents', 93, 107, 'cents'], // valor líquido a ser creditado
  ['otherExpensesCents', 108, 122, 'cents'],
  ['otherCreditsCents', 123, 137, 'cents'],
  ['occurredDate', 138, 145, 'date'], // data da ocorrência (the payment's date for a liquidação)
  ['creditDate', 146, 153, 'date'], // data da efetivação do crédito
  ['payerOccurrenceCode', 154, 157, 'alpha'],
  ['payerOccurrenceDate', 158, 165, 'date'],
  ['payerOccurrenceCents', 166, 180, 'cents'],
  ['payerOccurrenceText', 181, 210, 'alpha'],
  ['correspondentBank', 211, 213, 'num'],
  ['correspondentNossoNumero', 214, 233, 'alpha'],
  ['reserved1', 234, 240, 'blank'],
]);

export const LOT_TRAILER = recordLayout('lot trailer', [
  ['bankCode', 1, 3, 'num'],
  ['lot', 4, 7, 'num'],
  ['recordType', 8, 8, 'num'], // '5'
  ['reserved1', 9, 17, 'blank'],
  ['recordCount', 18, 23, 'num'], // header, details and trailer of the lot
  ['simpleCount', 24, 29, 'num'], // cobrança simples: how many slips
  ['simpleTotalCents', 30, 46, 'cents'], // and their sum
  ['linkedCount', 47, 52, 'num'], // vinculada
  ['linkedTotalCents', 53, 69, 'cents'],
  ['securedCount', 70, 75, 'num'], // caucionada
  ['securedTotalCents', 76, 92, 'cents'],
  ['discountedCount', 93, 98, 'num'], // descontada
  ['discountedTotalCents', 99, 115, 'cents'],
  ['noticeNumber', 116, 123, 'alpha'],
  ['reserved2', 124, 240, 'blank'],
]);

export const FILE_TRAILER = recordLayout('file trailer', [
  ['bankCode', 1, 3, 'num'],
  ['lot', 4, 7, 'num'], // '9999'
  ['recordType', 8, 8, 'num'], // '9'
  ['reserved1', 9, 17, 'blank'],
  ['lotCount', 18, 23, 'num'],
  ['recordCount', 24, 29, 'num'], // every record of the file, its header and trailer included
  ['accountCount', 30, 35, 'num'], // contas para conciliação: zero for cobrança
  ['reserved2', 36, 240, 'blank'],
]);

/** The lot trailer as banks that keep the totals for their return files want it in a remittance: the count only. */
export const LOT_TRAILER_COUNT_ONLY = recordLayout('lot trailer (count only)', [
  ['bankCode', 1, 3, 'num'],
  ['lot', 4, 7, 'num'],
  ['recordType', 8, 8, 'num'],
  ['reserved1', 9, 17, 'blank'],
  ['recordCount', 18, 23, 'num'],
  ['reserved2', 24, 240, 'blank'],
]);
