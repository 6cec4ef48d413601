import { telemetry } from './instrument';
import { runMain, runServiceMain } from '@pgw/platform-service';
import { chargesService } from './service';

// Distributed mode: charges alone; the vault (VAULT_URL) and the acquirer (ACQUIRER_SIM_URL) over HTTP.
runMain('charges', telemetry, () => runServiceMain(chargesService, { schema: 'charges' }));
