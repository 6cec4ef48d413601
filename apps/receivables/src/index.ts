export { createReceivablesService, receivablesService } from './service';
export type { ReceivablesOptions } from './service';
export type { Bank, BankOutcome } from './operations/bank';
