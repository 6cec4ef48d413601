import type { FastifyInstance } from 'fastify';
import {
  ReferenceParams,
  RefundRequest,
  SIM_PATHS,
  WireRefund,
  type WireRefundBody,
} from '@pgw/acquirer';
import type { Clock } from '@pgw/platform-service';
import type { RefundRow, SimStore } from '../data/sim-store';
import { isoRequired, type Refusals } from '../http';
import { createRoute, rowRoute } from './sim-routes';
import { refund, refundByReference } from '../operations/refunds';

const toWire = (row: RefundRow): WireRefundBody => ({
  reference: row.reference,
  refund_id: row.refund_id,
  transaction_id: row.transaction_id,
  status: row.status,
  amount_cents: Number(row.amount_cents),
  failure_reason: row.failure_reason,
  created_at: isoRequired(row.created_at),
});

const REFUSALS: Refusals<
  | 'authorization_not_found'
  | 'not_refundable'
  | 'refund_amount_exceeds_captured'
  | 'reference_reused'
> = {
  authorization_not_found: {
    message: 'No transaction with this transaction_id.',
    param: 'transaction_id',
  },
  not_refundable: {
    message: 'Only a captured transaction can be refunded.',
    param: 'transaction_id',
  },
  refund_amount_exceeds_captured: {
    message: 'The refunds would exceed the captured amount.',
    param: 'amount_cents',
  },
  reference_reused: { message: 'This reference was used for another refund.', param: 'reference' },
};

/** Refunds of captured transactions (operations/refunds.ts). */
export function refundsRoute(app: FastifyInstance, store: SimStore, clock: Clock): void {
  const refundResource = { wire: WireRefund, toWire };
  createRoute(app, refundResource, {
    path: SIM_PATHS.refunds,
    body: RefundRequest,
    create: (body) => refund(store, clock, body),
    refusals: REFUSALS,
  });
  rowRoute(app, refundResource, {
    method: 'get',
    path: SIM_PATHS.refund,
    params: ReferenceParams,
    notFound: 'refund',
    answer: ({ reference }) => refundByReference(store, reference),
  });
}
