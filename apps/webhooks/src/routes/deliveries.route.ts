import { afterCommit, type Db } from '@pgw/platform-db';
import { ListEnvelope, listPage, notFound, pagingOf, type App } from '@pgw/platform-http';
import type { Clock } from '@pgw/platform-service';
import { RETRY_WINDOW_MS } from '../config';
import {
  attemptsOf,
  findDelivery,
  listDeliveries,
  scheduleRedelivery,
} from '../data/deliveries.repository';
import { findEndpoint } from '../data/endpoints.repository';
import { DELIVERY_ID_PATTERN, ENDPOINT_ID_PATTERN } from '@pgw/webhooks-domain/ids';
import {
  attemptResource,
  DeliveriesQuery,
  DeliveryBody,
  DeliveryItem,
  DeliveryWithAttemptsBody,
  deliveryResource,
  IdParams,
  operatorPathId,
} from './schemas';

export interface DeliveriesRouteContext {
  db: Db;
  clock: Clock;
  /** Wakes the delivery worker once a redelivery is committed. */
  wake: () => void;
}

/** Operator routes (contract §5's /admin/v1, forwarded by the gateway): an endpoint's deliveries, one with its attempts, a redelivery. */
export function deliveriesRoutes(app: App, ctx: DeliveriesRouteContext): void {
  app.get(
    '/admin/v1/webhook-endpoints/:id/deliveries',
    {
      schema: {
        params: IdParams,
        querystring: DeliveriesQuery,
        response: { 200: ListEnvelope(DeliveryItem) },
      },
    },
    async (request) => {
      const id = operatorPathId(request, ENDPOINT_ID_PATTERN, 'webhook endpoint');
      const { status } = request.query;
      const { page, limit } = pagingOf(request.query);
      const result = await ctx.db.read(async (q) => {
        if ((await findEndpoint(q, id)) === undefined) return undefined;
        return listDeliveries(q, id, status === undefined ? {} : { status }, page, limit);
      });
      if (result === undefined) throw notFound('webhook endpoint');
      return {
        ...listPage(result.data.map(deliveryResource), page, limit, result.total),
        request_id: request.id,
      };
    },
  );

  app.get(
    '/admin/v1/webhook-deliveries/:id',
    { schema: { params: IdParams, response: { 200: DeliveryWithAttemptsBody } } },
    async (request) => {
      const id = operatorPathId(request, DELIVERY_ID_PATTERN, 'webhook delivery');
      const found = await ctx.db.read(async (q) => {
        const delivery = await findDelivery(q, id);
        return delivery === undefined ? undefined : { delivery, attempts: await attemptsOf(q, id) };
      });
      if (found === undefined) throw notFound('webhook delivery');
      return {
        ...deliveryResource(found.delivery),
        event: JSON.parse(found.delivery.body) as unknown,
        attempts: found.attempts.map(attemptResource),
        request_id: request.id,
      };
    },
  );

  app.post(
    '/admin/v1/webhook-deliveries/:id/redeliver',
    { schema: { params: IdParams, response: { 200: DeliveryBody } } },
    async (request) => {
      const id = operatorPathId(request, DELIVERY_ID_PATTERN, 'webhook delivery');
      const delivery = await ctx.db.tx(async (trx) => {
        const now = ctx.clock.now();
        const scheduled = await scheduleRedelivery(
          trx,
          id,
          now,
          new Date(now.getTime() + RETRY_WINDOW_MS),
        );
        if (scheduled !== undefined) afterCommit(trx, ctx.wake);
        return scheduled;
      });
      if (delivery === undefined) throw notFound('webhook delivery');
      return { ...deliveryResource(delivery), request_id: request.id };
    },
  );
}
