import { Type } from '@sinclair/typebox';
import {
  ListEnvelope,
  listPage,
  Nullable,
  PagingQuery,
  pagingOf,
  sellerPrincipal,
  type App,
} from '@pgw/platform-http';
import type { Db } from '@pgw/platform-db';
import { history } from '../data/journal.repository';

const BalanceTransaction = Type.Object(
  {
    object: Type.Literal('balance_transaction'),
    id: Type.String({ pattern: '^ldge_[A-Za-z0-9]+$' }),
    type: Type.String(),
    direction: Type.Union([Type.Literal('debit'), Type.Literal('credit')]),
    amount_cents: Type.Integer({ minimum: 1 }),
    currency: Type.Literal('BRL'),
    charge_id: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

/**
 * GET /api/v1/balance/history: the seller's balance transactions, most recent first. Moves between the
 * seller's own buckets (a release, a payout reserved) change nothing the seller has and are not listed.
 */
export function balanceHistoryRoutes(app: App, db: Db): void {
  app.get(
    '/api/v1/balance/history',
    {
      schema: {
        querystring: Type.Object(PagingQuery),
        response: { 200: ListEnvelope(BalanceTransaction) },
      },
    },
    async (request) => {
      const principal = sellerPrincipal(request, 'balance:read');
      const { page, limit } = pagingOf(request.query);
      const { data, total } = await db.read((q) =>
        history(q, principal.tenantId, principal.livemode, principal.sellerId, page, limit),
      );
      const items = data.map((t) => ({
        object: 'balance_transaction' as const,
        id: t.id,
        type: t.type,
        direction: t.direction,
        amount_cents: t.amountCents,
        currency: 'BRL' as const,
        charge_id: t.chargeId,
        created_at: t.createdAt.toISOString(),
      }));
      return { ...listPage(items, page, limit, total), request_id: request.id };
    },
  );
}
