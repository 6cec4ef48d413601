import { telemetry } from './instrument';
import { runMain, runServiceMain } from '@pgw/platform-service';
import { webhooksService } from './service';

// Distributed mode: the webhooks service alone; its replicas share the deliveries table (leased rows).
runMain('webhooks', telemetry, () => runServiceMain(webhooksService, { schema: 'webhooks' }));
