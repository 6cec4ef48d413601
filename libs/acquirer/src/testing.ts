// @pgw/acquirer/testing: the fakes the live adapters are proven against, for other projects' specs (the
// all-in-one's end-to-end run with live rails). Never imported by production code.
export { merchantOrderIdOf } from './live/cielo/cielo-ids';
export { FakeCielo } from './live/cielo/testing/fake-cielo';
export {
  BENEFICIARY as CNAB240_TEST_BENEFICIARY,
  PROFILE as CNAB240_TEST_PROFILE,
  writeReturnFile,
} from './live/cnab240/test-fixtures';
export type { ReturnMovement } from './live/cnab240/test-fixtures';
export { FakePsp } from './live/pix-bcb/testing/fake-psp';
export { makeThrowawayPki } from './live/pix-bcb/testing/throwaway-pki';
export type { Pki } from './live/pix-bcb/testing/throwaway-pki';
export { readableKeyPair, startSftpTestServer } from './live/cnab240/testing/sftp-server';
export type { SftpTestServer } from './live/cnab240/testing/sftp-server';
