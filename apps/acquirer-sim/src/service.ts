import { SIM_PATHS } from '@pgw/acquirer';
import { PgSimStore, registerSimulator, simConfig, simMigrations } from '@pgw/acquirer-simulator';
import type { ServiceDefinition } from '@pgw/platform-service';

/**
 * The acquirer simulator as a service (@pgw/acquirer-simulator holds it): its state in this service's
 * schema, so that it survives restarts and is shared by replicas. Its /acquirer/v1 routes stand for a
 * third party's API, so they are not behind our principal (an optional shared key guards them); the
 * operator route that sets the fault mode is, like every /admin/v1 route.
 */
export const acquirerSimService: ServiceDefinition = {
  name: 'acquirer-sim',
  migrations: simMigrations,
  publicRoutes: Object.values(SIM_PATHS),
  async build(app, context) {
    await registerSimulator(app, {
      store: new PgSimStore(context.db),
      clock: context.clock,
      config: simConfig(context.env),
    });
    return {};
  },
};
