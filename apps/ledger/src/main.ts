import { telemetry } from './instrument';
import { runMain, runServiceMain } from '@pgw/platform-service';
import { ledgerService } from './service';

// Distributed mode: the ledger alone, on its own schema of PostgreSQL and on Kafka.
runMain('ledger', telemetry, () => runServiceMain(ledgerService, { schema: 'ledger' }));
