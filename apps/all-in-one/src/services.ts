import { acquirerSimService } from '@pgw/acquirer-sim';
import { anticipationService } from '@pgw/anticipation';
import { chargesService } from '@pgw/charges';
import { ledgerService } from '@pgw/ledger';
import type { ServiceDefinition } from '@pgw/platform-service';
import { receivablesService } from '@pgw/receivables';
import { vaultService } from '@pgw/vault';
import { webhooksService } from '@pgw/webhooks';

/**
 * Every service the all-in-one process runs, in start order. A new service adds its definition here;
 * the gateway reaches it by its name.
 */
export const SERVICES: ServiceDefinition[] = [
  acquirerSimService,
  vaultService,
  chargesService,
  receivablesService,
  ledgerService,
  webhooksService,
  anticipationService,
];
