import { telemetry } from './instrument';
import { runMain, runServiceMain } from '@pgw/platform-service';
import { createVaultService } from './service';

// Distributed mode: the vault alone; its keys come only from the environment (VAULT_KEK, VAULT_KEK_ID, VAULT_FINGERPRINT_KEY), and the acquirer from ACQUIRER_SIM_URL.
runMain('vault', telemetry, () =>
  runServiceMain(createVaultService({ keys: 'environment' }), { schema: 'vault' }),
);
