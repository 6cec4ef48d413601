import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  AuthorizeRequest,
  ReferenceParams,
  SIM_PATHS,
  TransactionParams,
  WireAuthorization,
  type AuthorizeRequestBody,
  type WireAuthorizationBody,
} from '@pgw/acquirer';
import type { Db, Tx } from '@pgw/platform-db';
import type { Clock } from '@pgw/platform-service';
import { created, iso, isoRequired, notFoundReply, reject, simId } from '../http';
import { outcomeOf, type CardProfile } from '../test-cards';

export interface AuthorizationRow {
  transaction_id: string;
  reference: string;
  card_ref: string;
  amount_cents: string | number;
  installments: number;
  capture_requested: boolean;
  status: WireAuthorizationBody['status'];
  captured_amount_cents: string | number;
  refunded_amount_cents: string | number;
  authorization_code: string | null;
  return_code: string | null;
  return_message: string | null;
  refused_reason: WireAuthorizationBody['refused_reason'];
  created_at: Date | string;
  captured_at: Date | string | null;
  canceled_at: Date | string | null;
}

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

const AUTH_CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const authorizationCode = (): string => Array.from({ length: 6 }, () => AUTH_CODE_ALPHABET[randomInt(AUTH_CODE_ALPHABET.length)]).join('');

const lockByTransaction = (trx: Tx, transactionId: string) =>
  trx('authorizations').where({ transaction_id: transactionId }).forUpdate().first<AuthorizationRow | undefined>();

/**
 * Authorization, capture and cancel. The decision comes from the card number (contract §6); the security
 * code, when sent, is checked for shape by the schema and then dropped: it is never written anywhere.
 */
export function authorizationsRoute(app: FastifyInstance, db: Db, clock: Clock): void {
  const replies = { 200: WireAuthorization, 201: WireAuthorization };

  app.post<{ Body: AuthorizeRequestBody }>(SIM_PATHS.authorizations, { schema: { body: AuthorizeRequest, response: replies } }, async (request, reply) => {
    const body = request.body;
    const result = await db.tx(async (trx) => {
      const existing = await trx('authorizations').where({ reference: body.reference }).first<AuthorizationRow | undefined>();
      if (existing !== undefined) return { row: existing, isNew: false };
      const card = await trx('cards').where({ card_ref: body.card_ref }).first<{ profile: CardProfile } | undefined>('profile');
      if (card === undefined) return null;
      const outcome = outcomeOf(card.profile);
      const now = clock.now();
      const approved = outcome.status === 'approved';
      const row = {
        transaction_id: simId('txn_'),
        reference: body.reference,
        card_ref: body.card_ref,
        amount_cents: body.amount_cents,
        installments: body.installments,
        capture_requested: body.capture,
        status: approved ? (body.capture ? 'captured' : 'authorized') : outcome.status,
        captured_amount_cents: approved && body.capture ? body.amount_cents : 0,
        refunded_amount_cents: 0,
        authorization_code: approved ? authorizationCode() : null,
        return_code: approved ? '00' : outcome.returnCode,
        return_message: approved ? 'Approved' : outcome.returnMessage,
        refused_reason: approved ? null : outcome.refusedReason,
        created_at: now,
        captured_at: approved && body.capture ? now : null,
        canceled_at: null,
      };
      // A concurrent request with the same reference may win the insert: then its row is the answer.
      const inserted = await trx('authorizations').insert(row).onConflict('reference').ignore().returning<AuthorizationRow[]>('*');
      if (inserted[0] !== undefined) return { row: inserted[0], isNew: true };
      return { row: await trx('authorizations').where({ reference: body.reference }).first<AuthorizationRow>(), isNew: false };
    });
    if (result === null) return reject(reply, 'card_not_found', 'No card with this card_ref.', 'card_ref');
    const { row } = result;
    const same =
      row.card_ref === body.card_ref && Number(row.amount_cents) === body.amount_cents && row.installments === body.installments && row.capture_requested === body.capture;
    if (!same) return reject(reply, 'reference_reused', 'This reference was used for another authorization.', 'reference');
    return created(reply, result.isNew).send(authorizationToWire(row));
  });

  app.get<{ Params: { reference: string } }>(SIM_PATHS.authorization, { schema: { params: ReferenceParams, response: { 200: WireAuthorization } } }, async (request, reply) => {
    const row = await db.read((q) => q('authorizations').where({ reference: request.params.reference }).first<AuthorizationRow | undefined>());
    if (row === undefined) return notFoundReply(reply, 'authorization');
    return authorizationToWire(row);
  });

  app.post<{ Params: { transaction_id: string } }>(SIM_PATHS.capture, { schema: { params: TransactionParams, response: { 200: WireAuthorization } } }, async (request, reply) => {
    const result = await db.tx(async (trx) => {
      const row = await lockByTransaction(trx, request.params.transaction_id);
      if (row === undefined || row.status === 'captured') return row ?? null;
      if (row.status !== 'authorized') return 'not_capturable' as const;
      const updated = await trx('authorizations')
        .where({ transaction_id: row.transaction_id })
        .update({ status: 'captured', captured_amount_cents: row.amount_cents, captured_at: clock.now() })
        .returning<AuthorizationRow[]>('*');
      return updated[0] as AuthorizationRow;
    });
    if (result === null) return notFoundReply(reply, 'transaction');
    if (result === 'not_capturable') return reject(reply, 'not_capturable', 'Only an authorized, uncaptured transaction can be captured.');
    return authorizationToWire(result);
  });

  app.post<{ Params: { transaction_id: string } }>(SIM_PATHS.cancel, { schema: { params: TransactionParams, response: { 200: WireAuthorization } } }, async (request, reply) => {
    const result = await db.tx(async (trx) => {
      const row = await lockByTransaction(trx, request.params.transaction_id);
      if (row === undefined || row.status === 'canceled') return row ?? null;
      if (row.status !== 'authorized') return 'not_cancelable' as const;
      const updated = await trx('authorizations')
        .where({ transaction_id: row.transaction_id })
        .update({ status: 'canceled', canceled_at: clock.now() })
        .returning<AuthorizationRow[]>('*');
      return updated[0] as AuthorizationRow;
    });
    if (result === null) return notFoundReply(reply, 'transaction');
    if (result === 'not_cancelable') return reject(reply, 'not_cancelable', 'Only an authorized, uncaptured transaction can be canceled; refund a captured one.');
    return authorizationToWire(result);
  });
}
