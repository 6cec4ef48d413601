import { Type } from '@sinclair/typebox';
import { RequestIdSchema, sellerPrincipal, type App } from '@pgw/platform-http';
import type { Db } from '@pgw/platform-db';
import { sellerBalances } from '../data/journal.repository';

const Cents = Type.Integer({ minimum: 0 });
const BalanceBody = Type.Object(
  {
    object: Type.Literal('balance'),
    pending_cents: Cents,
    available_cents: Cents,
    reserved_cents: Cents,
    requestable_cents: Cents,
    currency: Type.Literal('BRL'),
    request_id: RequestIdSchema,
  },
  { additionalProperties: false },
);

/**
 * GET /api/v1/balance (api-v1 §2): pending is the receivables not yet due; available the released ones,
 * including those committed to payouts in flight (reserved); requestable = available - reserved. The
 * seller's debt (money paid out, then refunded or charged back) is netted against available before it
 * is shown; what available cannot cover is owed, and is netted as more money becomes available.
 */
export function balanceRoutes(app: App, db: Db): void {
  app.get('/api/v1/balance', { schema: { response: { 200: BalanceBody } } }, async (request) => {
    const principal = sellerPrincipal(request, 'balance:read');
    const b = await db.read((q) =>
      sellerBalances(q, principal.tenantId, principal.livemode, principal.sellerId),
    );
    return {
      object: 'balance' as const,
      pending_cents: b.pendingCents,
      available_cents: b.availableCents + b.reservedCents,
      reserved_cents: b.reservedCents,
      requestable_cents: b.availableCents,
      currency: 'BRL' as const,
      request_id: request.id,
    };
  });
}
