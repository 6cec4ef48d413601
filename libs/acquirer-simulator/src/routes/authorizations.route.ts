import type { FastifyInstance } from 'fastify';
import {
  AuthorizeRequest,
  ReferenceParams,
  SIM_PATHS,
  TransactionParams,
  WireAuthorization,
  type WireAuthorizationBody,
} from '@pgw/acquirer';
import type { Clock } from '@pgw/platform-service';
import type { AuthorizationRow, SimStore } from '../data/sim-store';
import { iso, isoRequired, type Refusals } from '../http';
import { createRoute, rowRoute } from './sim-routes';
import { authorizationByReference, authorize, cancel, capture } from '../operations/authorizations';

export function authorizationToWire(row: AuthorizationRow): WireAuthorizationBody {
  return {
    reference: row.reference,
    transaction_id: row.transaction_id,
    status: row.status,
    amount_cents: Number(row.amount_cents),
    installments: row.installments,
    captured_amount_cents: Number(row.captured_amount_cents),
    refunded_amount_cents: Number(row.refunded_amount_cents),
    authorization_code: row.authorization_code,
    return_code: row.return_code,
    return_message: row.return_message,
    refused_reason: row.refused_reason,
    created_at: isoRequired(row.created_at),
    captured_at: iso(row.captured_at),
    canceled_at: iso(row.canceled_at),
  };
}

const REFUSALS: Refusals<'card_not_found' | 'reference_reused'> = {
  card_not_found: { message: 'No card with this card_ref.', param: 'card_ref' },
  reference_reused: {
    message: 'This reference was used for another authorization.',
    param: 'reference',
  },
};

const SETTLE_REFUSALS = {
  not_capturable: 'Only an authorized, uncaptured transaction can be captured.',
  not_cancelable:
    'Only an authorized, uncaptured transaction can be canceled; refund a captured one.',
};

/** Authorization, capture and cancel (operations/authorizations.ts). */
export function authorizationsRoute(app: FastifyInstance, store: SimStore, clock: Clock): void {
  const authorization = { wire: WireAuthorization, toWire: authorizationToWire };
  createRoute(app, authorization, {
    path: SIM_PATHS.authorizations,
    body: AuthorizeRequest,
    create: (body) => authorize(store, clock, body),
    refusals: REFUSALS,
  });
  rowRoute(app, authorization, {
    method: 'get',
    path: SIM_PATHS.authorization,
    params: ReferenceParams,
    notFound: 'authorization',
    answer: ({ reference }) => authorizationByReference(store, reference),
  });
  const settlements = [
    [SIM_PATHS.capture, capture],
    [SIM_PATHS.cancel, cancel],
  ] as const;
  for (const [path, settle] of settlements)
    rowRoute(app, authorization, {
      method: 'post',
      path,
      params: TransactionParams,
      notFound: 'transaction',
      answer: ({ transaction_id }) => settle(store, clock, transaction_id),
      refusals: SETTLE_REFUSALS,
    });
}
