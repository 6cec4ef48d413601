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
  CancelInput,
  CaptureInput,
  CreatePixChargeInput,
  PixCharge,
  Refund,
  RefundInput,
  RefusedReason,
  RegisterBoletoInput,
  StoreCardInput,
  StoredCard,
} from './port';
export { ACQUIRER_TIMEOUT_MS_DEFAULT, classifyTransportError, createAcquirer, SIM_SERVICE_NAME, SimAcquirer } from './sim-acquirer';
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
export { BCB_PIX_SCOPES_DEFAULT, readBcbPixConfig, readBcbPixTlsMaterial } from './live/pix-bcb/config';
export type { BcbPixConfig, BcbPixTlsMaterial } from './live/pix-bcb/config';
export { refundIdOf, txidOf } from './live/pix-bcb/ids';
export { parsePixNotification } from './live/pix-bcb/notifications';
export type { ReceivedPix, ReceivedPixRefund } from './live/pix-bcb/notifications';
export { Redacted } from './live/pix-bcb/redacted';
