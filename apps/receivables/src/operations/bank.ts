import type { Settlement } from '../data/settlements.repository';

export type BankOutcome = 'paid' | 'processing' | 'failed';

/**
 * Where settlements are paid. No real bank is integrated in v1: the simulated bank pays at once
 * (contract §4a, test mode). A bank that answers `processing` keeps the settlement's amount reserved
 * until a later settlement-run asks it again.
 */
export interface Bank {
  transfer(settlement: Settlement): Promise<BankOutcome>;
  status(settlement: Settlement): Promise<BankOutcome>;
}

export const simulatedBank: Bank = {
  transfer: async () => 'paid',
  status: async () => 'paid',
};
