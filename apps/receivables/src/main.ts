import { telemetry } from './instrument';
import { runMain, runServiceMain } from '@pgw/platform-service';
import { receivablesService } from './service';

// Distributed mode: receivables alone, on its own schema of PostgreSQL and on Kafka.
runMain('receivables', telemetry, () =>
  runServiceMain(receivablesService, { schema: 'receivables' }),
);
