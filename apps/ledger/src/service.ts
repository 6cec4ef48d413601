import type { ServiceDefinition } from '@pgw/platform-service';
import { movementsConsumer } from './consumers/movements.consumer';
import { ledgerMigrations } from './migrations';
import { balanceHistoryRoutes } from './routes/balance-history.route';
import { balanceRoutes } from './routes/balance.route';

/** The ledger: a double-entry journal of every balance movement, its running balances, and the seller's history. */
export const ledgerService: ServiceDefinition = {
  name: 'ledger',
  migrations: ledgerMigrations,
  async build(app, { db, clock }) {
    balanceRoutes(app, db);
    balanceHistoryRoutes(app, db);
    return { consumers: [movementsConsumer(clock)] };
  },
};
