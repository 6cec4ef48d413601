import type { Db } from '@pgw/platform-db';
import { notFound, type App } from '@pgw/platform-http';
import type { Clock } from '@pgw/platform-service';
import { SECRET_OVERLAP_MS } from '../config';
import { rotateSecret } from '../data/endpoints.repository';
import { ENDPOINT_ID_PATTERN, newEndpointSecret } from '@pgw/webhooks-domain/ids';
import { IdParams, operatorPathId, RotatedSecretBody } from './schemas';

/**
 * POST /admin/v1/webhook-endpoints/:id/rotate-secret. The gateway creates endpoints and announces their
 * first secret; rotation is this service's: it signs, so it holds the rotation state. The new secret is
 * answered this once; for 24 h the previous one signs too (two v1= values), so the integrator can deploy
 * the new secret without losing a delivery. A second rotation within the 24 h ends the oldest secret at once.
 */
export function rotateSecretRoute(app: App, ctx: { db: Db; clock: Clock }): void {
  app.post(
    '/admin/v1/webhook-endpoints/:id/rotate-secret',
    { schema: { params: IdParams, response: { 200: RotatedSecretBody } } },
    async (request) => {
      const id = operatorPathId(request, ENDPOINT_ID_PATTERN, 'webhook endpoint');
      const endpoint = await ctx.db.tx((trx) =>
        rotateSecret(trx, id, newEndpointSecret(), ctx.clock.now(), SECRET_OVERLAP_MS),
      );
      if (endpoint === undefined || endpoint.previousSecretExpiresAt === null)
        throw notFound('webhook endpoint');
      return {
        object: 'webhook_endpoint' as const,
        id: endpoint.id,
        tenant_id: endpoint.tenantId,
        url: endpoint.url,
        events: endpoint.events,
        livemode: endpoint.livemode,
        secret: endpoint.secret,
        previous_secret_expires_at: endpoint.previousSecretExpiresAt.toISOString(),
        request_id: request.id,
      };
    },
  );
}
