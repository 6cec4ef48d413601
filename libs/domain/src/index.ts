// @pgw/domain: pure rules shared by the services (no I/O, no framework). Named re-exports only, so that
// every public name is listed here and nothing internal leaks out by accident.

export { allocateEvenly, anticipationFee, mdrFeeCents, roundHalfUpDiv } from './money/money';
export type { AnticipationFeeInput } from './money/money';
export type { MovementAmounts } from './money/movement';
export { allocateSplit } from './money/split';
export type {
  SplitAllocation,
  SplitItemInput,
  SplitRejectionReason,
  SplitResult,
} from './money/split';

export {
  cnpjCheckDigits,
  cpfCheckDigits,
  generateCnpj,
  generateCpf,
  isValidCnpj,
  isValidCpf,
  normalizeDocument,
} from './br/documents';
export type { DocumentType, NormalizedDocument } from './br/documents';
export { normalizeCep, normalizePhone } from './br/contact';

export { luhnCheckDigit, luhnValid } from './cards/luhn';
export { fingerprint, last4, normalizePan } from './cards/pan';
export { detectBrand } from './cards/brand';
export type { CardBrand } from './cards/brand';
export type { RefusedReason } from './cards/refusal';

export { crc16CcittFalse } from './pix/crc16';
export { parseTlv, tlv } from './pix/tlv';
export type { TlvField, TlvParseResult } from './pix/tlv';
export { buildBrCode, verifyBrCode } from './pix/br-code';
export type { BrCodeInput, BrCodeVerification } from './pix/br-code';

export { BOLETO_FACTOR_PAST_WINDOW_DAYS, dateFromFactor, dueDateFactor } from './boleto/factor';
export { boletoMod10, boletoMod11 } from './boleto/check-digits';
export {
  BOLETO_AMOUNT_CENTS_MAX,
  barcodeFromDigitableLine,
  buildBarcode,
  digitableLine,
  formatDigitableLine,
  isValidBarcode,
  isValidDigitableLine,
  parseDigitableLine,
  readBarcode,
} from './boleto/barcode';
export type { BarcodeInput, BarcodeParts } from './boleto/barcode';

export {
  BASE62,
  ID_PATTERNS,
  ID_PREFIXES,
  isId,
  newId,
  randomString,
  rejectionBound,
} from './ids/ids';
export type { IdPrefix, RandomFill } from './ids/ids';

export {
  addDays,
  daysBetween,
  fromEpochDay,
  isDateString,
  toDateString,
  toEpochDay,
} from './dates/dates';

export { nestsDeeperThan, serializesLongerThan } from './json/json-size';

export {
  assert,
  InvariantError,
  isInvariantError,
  observeBrokenInvariants,
  unreachable,
} from './invariants/assert';
export type { BrokenInvariantObserver, InvariantContext } from './invariants/assert';

export { isPermission, PERMISSIONS } from './permissions/permissions';
export type { Permission } from './permissions/permissions';

export { Redacted } from './redacted/redacted';
export { CHARGE_STATUSES, PAYMENT_METHODS } from './charges/names';
export type { ChargeStatus, PaymentMethod } from './charges/names';
