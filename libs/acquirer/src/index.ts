// @pgw/acquirer: the acquirer port that domain code calls, and its adapter to the simulator. Named
// re-exports only. See README.md for the contract of every method.
export { ACQUIRER_REJECTION_CODES, REFERENCE_PATTERN } from './port';
export type {
  AcquirerFailure,
  AcquirerPort,
  AcquirerRejectionCode,
  AcquirerResult,
  Authorization,
  AuthorizationStatus,
  AuthorizeInput,
  Boleto,
  BoletoPayer,
  CancelInput,
  CaptureInput,
  CreatePixChargeInput,
  PixCharge,
  Refund,
  RefundInput,
  RefundLookup,
  RefusedReason,
  RegisterBoletoInput,
  StoreCardInput,
  StoredCard,
} from './port';
export {
  ACQUIRER_TIMEOUT_MS_DEFAULT,
  classifyTransportError,
  createAcquirer,
  SIM_SERVICE_NAME,
  SimAcquirer,
} from './sim-acquirer';
export type { SimAcquirerOptions } from './sim-acquirer';
export { assertLiveAllowed, LIVE_ON_SIMULATOR_MESSAGE, liveModeGuard } from './live-guard';
export type { LiveModeGuard } from './live-guard';
export {
  AuthorizeRequest,
  CreatePixChargeRequest,
  ProviderModeBody,
  ReferenceParams,
  RefundRequest,
  RegisterBoletoRequest,
  SIM_KEY_HEADER,
  SIM_PATHS,
  simPath,
  StoreCardRequest,
  TransactionParams,
  WireAuthorization,
  WireBoleto,
  WireCard,
  WirePixCharge,
  WireRefund,
} from './sim-wire';
export type {
  AuthorizeRequestBody,
  CreatePixChargeRequestBody,
  ProviderMode,
  RefundRequestBody,
  RegisterBoletoRequestBody,
  StoreCardRequestBody,
  WireAuthorizationBody,
  WireBoletoBody,
  WireCardBody,
  WirePixChargeBody,
  WireRefundBody,
} from './sim-wire';
export { BcbPixAdapter } from './live/pix-bcb/bcb-pix-adapter';
export type {
  BcbDueDatePixCharge,
  BcbPixAdapterOptions,
  BcbPixCharge,
  BcbPixRefund,
  CreateDueDatePixChargeInput,
  ListReceivedPixInput,
  PixAcquirerPort,
  PixDebtor,
  RefundPixInput,
} from './live/pix-bcb/bcb-pix-adapter';
export {
  BCB_PIX_SCOPES_DEFAULT,
  readBcbPixConfig,
  readBcbPixTlsMaterial,
} from './live/pix-bcb/config';
export type { BcbPixConfig, BcbPixTlsMaterial } from './live/pix-bcb/config';
export { refundIdOf, txidOf } from './live/pix-bcb/ids';
export { parsePixNotification } from './live/pix-bcb/notifications';
export {
  certificateFromHeader,
  describeNotifierTrust,
  normalizeFingerprint,
  readPixNotifierTrust,
  trustsNotifier,
} from './live/pix-bcb/notifier-trust';
export type { PixNotifierTrust } from './live/pix-bcb/notifier-trust';
export type { ReceivedPix, ReceivedPixRefund } from './live/pix-bcb/notifications';
export { bancoDoBrasilProfile } from './live/cnab240/bank-profile';
export type { BankProfile, Cnab240Beneficiary } from './live/cnab240/bank-profile';
export { applyReturn, Cnab240BoletoAdapter } from './live/cnab240/cnab240-boleto-adapter';
export type {
  BoletoPort,
  BoletoReturnEvent,
  Cnab240AdapterOptions,
  Cnab240Clock,
  ExchangeOptions,
  ExchangeSummary,
} from './live/cnab240/cnab240-boleto-adapter';
export {
  LIQUIDATION_REASONS,
  REJECTION_REASONS,
  RETURN_MOVEMENTS,
  WRITE_OFF_REASONS,
} from './live/cnab240/codes';
export type { MovementOutcome, ReasonCode } from './live/cnab240/codes';
export { DropFolderUnavailableError, LocalDropFolder } from './live/cnab240/drop-folder';
export { SftpDropFolder, hostKeyFingerprint } from './live/cnab240/sftp-drop-folder';
export type { SftpDropFolderOptions } from './live/cnab240/sftp-drop-folder';
export type { DropFolder, DropFolderArchive } from './live/cnab240/drop-folder';
export { REMITTANCE_BOLETOS_MAX, writeRemittance } from './live/cnab240/remittance';
export type { RemittanceBoleto, RemittanceInput } from './live/cnab240/remittance';
export { readCnab240File, readReturnFile } from './live/cnab240/return-file';
export type { BoletoReturn, Cnab240File, ReturnFile } from './live/cnab240/return-file';
export { emptyState, FileCnab240Store, parseCnab240State } from './live/cnab240/state-store';
export type {
  Cnab240Decision,
  Cnab240State,
  Cnab240Store,
  StoredBoleto,
  StoredBoletoStatus,
} from './live/cnab240/state-store';
export { CIELO_ACQUIRER_CODE, CieloAdapter } from './live/cielo/cielo-adapter';
export type { CardAcquirer, CieloAdapterOptions, CieloLog } from './live/cielo/cielo-adapter';
export {
  CIELO_ENVIRONMENTS,
  CIELO_QUERY_TIMEOUT_MS_DEFAULT,
  CIELO_TIMEOUT_MS_DEFAULT,
  cieloConfigFromEnv,
} from './live/cielo/cielo-config';
export type { CieloConfig } from './live/cielo/cielo-config';
export { acquirerCodeFor, AcquirerRouter, LiveAcquirer } from './live-acquirer';
export type {
  AcquirerRouterOptions,
  LiveAcquirerRails,
  LiveRailsSource,
  RailStatus,
  Scope,
} from './live-acquirer';
export {
  BOLETO_PROVIDERS,
  CARD_PROVIDERS,
  CREDENTIALS_NAME_PATTERN,
  credentialsEnv,
  credentialsPrefix,
  mask,
  PIX_PROVIDERS,
  RAIL_CACHE_MS_DEFAULT,
  RAIL_KINDS,
  railRecordOf,
  railsOfRecord,
  SIMULATOR_RAIL,
} from './live-rails';
export type {
  BoletoProvider,
  BoletoRail,
  CardProvider,
  CardRail,
  Cnab240StoreFor,
  LiveRails,
  PixProvider,
  PixRail,
  RailChoice,
  RailKind,
  RailLog,
  RailSettings,
} from './live-rails';
