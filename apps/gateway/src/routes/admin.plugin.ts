import type { FastifyRequest } from 'fastify';
import type { App } from '@pgw/platform-http';
import { apiKeyRoutes } from './api-keys.route';
import { pricingPlanRoutes } from './pricing-plans.route';
import type { RouteContext } from './route-context';
import { sellerRoutes } from './sellers.route';
import { tenantRoutes } from './tenants.route';
import { webhookEndpointRoutes } from './webhook-endpoints.route';

/**
 * The operator API the gateway answers itself (contract §5: the directory). The admin token is checked
 * on request, before the body is even read.
 */
export async function registerAdminRoutes(
  app: App,
  ctx: RouteContext,
  checkAdminToken: (request: FastifyRequest) => void,
): Promise<void> {
  await app.register(
    async (admin) => {
      admin.addHook('onRequest', async (request) => checkAdminToken(request));
      await tenantRoutes(admin, ctx);
      await sellerRoutes(admin, ctx);
      await pricingPlanRoutes(admin, ctx);
      await apiKeyRoutes(admin, ctx);
      await webhookEndpointRoutes(admin, ctx);
    },
    { prefix: '/admin/v1' },
  );
}
