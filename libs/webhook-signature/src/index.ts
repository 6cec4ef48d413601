export {
  computeSignature,
  DEFAULT_TOLERANCE_SECONDS,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  signWebhook,
  verifyWebhook,
} from './signature';
export type {
  ParsedSignature,
  RawBody,
  VerifyFailure,
  VerifyOptions,
  VerifyResult,
} from './signature';
