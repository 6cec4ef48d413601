import type { ServiceDefinition } from '@pgw/platform-service';
import { anticipationConsumer } from './consumers/anticipation.consumer';
import { chargesConsumer } from './consumers/charges.consumer';
import { directoryConsumer } from './consumers/directory.consumer';
import { receivablesMigrations } from './migrations';
import { simulatedBank, type Bank } from './operations/bank';
import { jobsRoutes } from './routes/jobs.route';
import { receivablesRoutes } from './routes/receivables.route';
import { settlementsRoutes } from './routes/settlements.route';

export interface ReceivablesOptions {
  /** Where settlements are paid; the simulated bank pays at once. */
  bank?: Bank;
  /** Sellers a settlement-run reads per round (500); a test pages smaller. */
  sellersPerRound?: number;
}

/** The receivables service: the schedule of every paid charge, its release, and the settlements that pay it. */
export function createReceivablesService(options: ReceivablesOptions = {}): ServiceDefinition {
  return {
    name: 'receivables',
    migrations: receivablesMigrations,
    async build(app, { db, clock }) {
      receivablesRoutes(app, db);
      settlementsRoutes(app, db);
      jobsRoutes(app, {
        db,
        clock,
        bank: options.bank ?? simulatedBank,
        ...(options.sellersPerRound !== undefined
          ? { sellersPerRound: options.sellersPerRound }
          : {}),
      });
      return {
        consumers: [
          directoryConsumer(db, clock),
          chargesConsumer(db, clock),
          anticipationConsumer(db, clock),
        ],
      };
    },
  };
}

export const receivablesService: ServiceDefinition = createReceivablesService();
