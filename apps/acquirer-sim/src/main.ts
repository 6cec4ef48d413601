import { telemetry } from './instrument';
import { runMain, runServiceMain } from '@pgw/platform-service';
import { acquirerSimService } from './service';

// Distributed mode: the simulator alone, on its own schema of PostgreSQL (its outbox stays empty).
runMain('acquirer-sim', telemetry, () =>
  runServiceMain(acquirerSimService, { schema: 'acquirer_sim' }),
);
