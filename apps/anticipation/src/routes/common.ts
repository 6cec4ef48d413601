import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { scopeOf, sellerPrincipal } from '@pgw/platform-http';
import type { SellerScope } from '../data/receivables.repository';
import { RECEIVABLE_IDS_MAX } from '../operations/quote';

/** The body of simulate and execute (api-v1): optional, and with it optional receivable_ids, 1 to 100 ids. */
export const ReceivableIdsBody = Type.Object(
  {
    receivable_ids: Type.Optional(
      Type.Array(Type.String({ pattern: '^recv_[A-Za-z0-9]+$', maxLength: 255 }), {
        minItems: 1,
        maxItems: RECEIVABLE_IDS_MAX,
      }),
    ),
  },
  { additionalProperties: false },
);

export interface ReceivableIdsRequest {
  receivable_ids?: string[];
}

/** Path ids are checked by the handler, not the schema: an id that does not match its pattern is a 404. */
export const IdParams = Type.Object({ id: Type.String() });

/**
 * Every anticipation route is seller-scoped (api-v1 §5): the gateway refuses a key without a seller, and
 * the service checks again, so that a request that reached it some other way is refused the same.
 */
export function sellerScope(
  request: FastifyRequest,
  permission: 'anticipations:read' | 'anticipations:create',
): SellerScope {
  return scopeOf(sellerPrincipal(request, permission));
}
