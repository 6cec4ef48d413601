import { telemetry } from './instrument';
import { runMain, runServiceMain } from '@pgw/platform-service';
import { anticipationService } from './service';

// Distributed mode: anticipation alone, on its own schema of PostgreSQL and on Kafka.
runMain('anticipation', telemetry, () =>
  runServiceMain(anticipationService, { schema: 'anticipation' }),
);
