// @pgw/acquirer-simulator: the acquirer simulator (card store, authorization, refunds, Pix PSP, boleto bank,
// fault modes) as a library. apps/acquirer-sim runs it on its PostgreSQL schema; specs of other services
// run it in memory through @pgw/acquirer-simulator/testing.
export { simConfig } from './config';
export type { SimConfig } from './config';
export { simMigrations } from './data/migrations';
export { PgSimStore } from './data/pg-sim-store';
export { HeldAnswers } from './fault-mode';
export { PROVIDER_MODE_PATH } from './routes/provider-mode.route';
export { registerSimulator } from './simulator';
export type { SimulatorOptions } from './simulator';
export {
  REFUND_DECLINED_CARD,
  outcomeOf,
  profileOf,
} from '@pgw/acquirer-simulator-domain/test-cards';
export type { CardOutcome, CardProfile } from '@pgw/acquirer-simulator-domain/test-cards';
