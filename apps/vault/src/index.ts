export { createVaultService, vaultService } from './service';
export type { VaultServiceOptions } from './service';
