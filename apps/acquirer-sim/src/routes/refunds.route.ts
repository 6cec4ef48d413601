import type { FastifyInstance } from 'fastify';
import { ReferenceParams, RefundRequest, SIM_PATHS, WireRefund, type RefundRequestBody, type WireRefundBody } from '@pgw/acquirer';
import type { Db } from '@pgw/platform-db';
import type { Clock } from '@pgw/platform-service';
import { created, isoRequired, notFoundReply, reject, simId } from '../http';
import { refundsDeclined, type CardProfile } from '../test-cards';
import type { AuthorizationRow } from './authorizations.route';

interface RefundRow {
  refund_id: string;
  reference: string;
  transaction_id: string;
  amount_cents: string | number;
  status: WireRefundBody['status'];
  failure_reason: string | null;
  created_at: Date | string;
}

const toWire = (row: RefundRow): WireRefundBody => ({
  reference: row.reference,
  refund_id: row.refund_id,
  transaction_id: row.transaction_id,
  status: row.status,
  amount_cents: Number(row.amount_cents),
  failure_reason: row.failure_reason,
  created_at: isoRequired(row.created_at),
});

type Decision = { row: RefundRow; isNew: boolean } | { rejected: 'authorization_not_found' | 'not_refundable' | 'refund_amount_exceeds_captured' };

/**
 * Refunds of captured transactions. The transaction row is locked first, so two refunds of one
 * transaction are decided one after the other and their sum never passes the captured amount.
 */
export function refundsRoute(app: FastifyInstance, db: Db, clock: Clock): void {
  app.post<{ Body: RefundRequestBody }>(SIM_PATHS.refunds, { schema: { body: RefundRequest, response: { 200: WireRefund, 201: WireRefund } } }, async (request, reply) => {
    const body = request.body;
    const decision = await db.tx(async (trx): Promise<Decision> => {
      const auth = await trx('authorizations').where({ transaction_id: body.transaction_id }).forUpdate().first<AuthorizationRow | undefined>();
      // A replay is answered from the stored refund before any rule runs: the rules may no longer hold
      // (the amount is now refunded), but the answer must stay the first one.
      const existing = await trx('refunds').where({ reference: body.reference }).first<RefundRow | undefined>();
      if (existing !== undefined) return { row: existing, isNew: false };
      if (auth === undefined) return { rejected: 'authorization_not_found' };
      if (auth.status !== 'captured') return { rejected: 'not_refundable' };
      const refunded = Number(auth.refunded_amount_cents);
      if (refunded + body.amount_cents > Number(auth.captured_amount_cents)) return { rejected: 'refund_amount_exceeds_captured' };
      const card = await trx('cards').where({ card_ref: auth.card_ref }).first<{ profile: CardProfile }>('profile');
      const declined = refundsDeclined(card.profile);
      const row = {
        refund_id: simId('rfd_'),
        reference: body.reference,
        transaction_id: body.transaction_id,
        amount_cents: body.amount_cents,
        status: declined ? 'failed' : 'succeeded',
        failure_reason: declined ? 'refund_declined' : null,
        created_at: clock.now(),
      };
      // The same reference sent concurrently for another transaction: that one's refund is the answer.
      const inserted = await trx('refunds').insert(row).onConflict('reference').ignore().returning<RefundRow[]>('*');
      if (inserted[0] === undefined) return { row: await trx('refunds').where({ reference: body.reference }).first<RefundRow>(), isNew: false };
      if (!declined) {
        await trx('authorizations').where({ transaction_id: auth.transaction_id }).update({ refunded_amount_cents: refunded + body.amount_cents });
      }
      return { row: inserted[0] as RefundRow, isNew: true };
    });
    if ('rejected' in decision) {
      const messages = {
        authorization_not_found: 'No transaction with this transaction_id.',
        not_refundable: 'Only a captured transaction can be refunded.',
        refund_amount_exceeds_captured: 'The refunds would exceed the captured amount.',
      };
      return reject(reply, decision.rejected, messages[decision.rejected], decision.rejected === 'refund_amount_exceeds_captured' ? 'amount_cents' : 'transaction_id');
    }
    const { row } = decision;
    if (row.transaction_id !== body.transaction_id || Number(row.amount_cents) !== body.amount_cents) {
      return reject(reply, 'reference_reused', 'This reference was used for another refund.', 'reference');
    }
    return created(reply, decision.isNew).send(toWire(row));
  });

  app.get<{ Params: { reference: string } }>(SIM_PATHS.refund, { schema: { params: ReferenceParams, response: { 200: WireRefund } } }, async (request, reply) => {
    const row = await db.read((q) => q('refunds').where({ reference: request.params.reference }).first<RefundRow | undefined>());
    if (row === undefined) return notFoundReply(reply, 'refund');
    return toWire(row);
  });
}
