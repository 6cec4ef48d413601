import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { isId } from '@pgw/domain';
import type { Db } from '@pgw/platform-db';
import { ApiError, notFound, RequestIdSchema, type ApiKeyPrincipal } from '@pgw/platform-http';
import { findToken } from '../data/token.repository';

export const INTERNAL_TOKEN_PATH = '/internal/v1/tokens/:id';
/**
 * The one request whose principal charges forwards here. The gateway signs each principal for the request
 * it forwards (method and path), so the one charges received is bound to `POST /api/v1/charges`, not to
 * this route; the route names it to accept it, and accepts no other: a principal captured on any other
 * request (a read, a refund) cannot be spent on a token lookup.
 */
export const CHARGE_CREATION = 'POST /api/v1/charges';

const InternalToken = Type.Object(
  {
    card_ref: Type.String(),
    /** Where card_ref is valid: charges sends the token's charges to this rail (null: a token older than the record). */
    card_rail: Type.Union([Type.String(), Type.Null()]),
    brand: Type.String(),
    last4: Type.String({ pattern: '^[0-9]{4}$' }),
    exp_month: Type.Integer(),
    exp_year: Type.Integer(),
    seller_id: Type.String(),
    request_id: RequestIdSchema,
  },
  { additionalProperties: false },
);

function apiKeyPrincipal(request: FastifyRequest): ApiKeyPrincipal {
  const principal = request.principal;
  if (principal === null || principal.kind !== 'api_key')
    throw new ApiError('principal_invalid', 'This route needs an API key principal.');
  return principal;
}

/**
 * For charges: a token to the card reference it stands for. Internal (the gateway never routes
 * /internal), and still scoped like a public route: the principal the caller forwards (the integrator's,
 * signed by the gateway for POST /api/v1/charges) must be of the token's tenant and environment, and, if seller-scoped, of its
 * seller. Anything else is a 404, as for an id that does not exist. No permission is named: the calling
 * service has checked its own (charges:create) already.
 */
export function getTokenInternalRoute(app: FastifyInstance, db: Db): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    INTERNAL_TOKEN_PATH,
    {
      schema: { params: Type.Object({ id: Type.String() }), response: { 200: InternalToken } },
      config: { principalFrom: [CHARGE_CREATION] },
    },
    async (request) => {
      const principal = apiKeyPrincipal(request);
      const id = request.params.id;
      if (!isId('tok_', id)) throw notFound('token');
      const row = await db.read((q) =>
        findToken(q, id, {
          tenantId: principal.tenantId,
          livemode: principal.livemode,
          sellerId: principal.sellerId,
        }),
      );
      if (row === undefined) throw notFound('token');
      return {
        card_ref: row.card_ref,
        card_rail: row.card_rail,
        brand: row.brand,
        last4: row.last4,
        exp_month: row.exp_month,
        exp_year: row.exp_year,
        seller_id: row.seller_id,
        request_id: request.id,
      };
    },
  );
}
