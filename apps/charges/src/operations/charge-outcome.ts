// The provider's side of a charge intent: ask (authorize, create the Pix, register the boleto), look up
// by reference when the answer was lost, and save what came back. The create route and the recovery
// share this code, so an interrupted charge ends exactly as an uninterrupted one would have.
import { assert } from '@pgw/domain';
import type { AcquirerResult, Authorization, Boleto, PixCharge } from '@pgw/acquirer';
import type { Tx } from '@pgw/platform-db';
import { completeKeysOf, type IdempotencySession, type Outcome } from '@pgw/platform-idempotency';
import { transition, type ChargeTrigger } from '@pgw/charges-domain/charge';
import type { Buyer } from '@pgw/charges-domain/charge-input';
import {
  lockCharge,
  updateCharge,
  updateChargeAtCommitIfUnchanged,
  type ChargePatch,
  type ChargeRow,
} from '../data/charge.repository';
import { chargeResource } from '../resources';
import { announceCharge, type Announcer } from './announce';
import { countAuthorization, type AuthorizationOutcome } from './charge-metrics';
import { acquirerFor } from './acquirer-for';
import { boletoPayerOf } from './boleto-payer';
import type { ChargesDeps } from './deps';

export type ProviderOutcome =
  | { kind: 'authorization'; value: Authorization }
  | { kind: 'pix'; value: PixCharge }
  | { kind: 'boleto'; value: Boleto }
  /** The provider could not be reached: nothing happened, and the charge fails. */
  | { kind: 'unreachable'; message: string }
  /** The provider refused the request itself: nothing happened, and the charge fails. */
  | { kind: 'rejected'; code: string; message: string }
  /** No answer in time: the charge stays pending, and recovery asks again by reference. */
  | { kind: 'unknown'; message: string };

function fromResult<T>(
  result: AcquirerResult<T>,
  wrap: (value: T) => ProviderOutcome,
): ProviderOutcome {
  if (result.ok) return wrap(result.value);
  switch (result.kind) {
    case 'unavailable':
      return { kind: 'unreachable', message: result.message };
    case 'rejected':
      return { kind: 'rejected', code: result.code, message: result.message };
    case 'timeout':
    case 'not_found':
      return { kind: 'unknown', message: result.message };
  }
}

/** Sends the intent to the provider, with the charge id as reference (the same one on every retry). */
export async function requestProvider(
  deps: ChargesDeps,
  charge: ChargeRow,
  securityCode?: string,
): Promise<ProviderOutcome> {
  const reference = charge.id;
  const amountCents = charge.amount_cents;
  const acquirer = await acquirerFor(deps, charge);
  switch (charge.payment_method) {
    case 'credit_card':
    case 'debit_card': {
      const card = { charge_id: charge.id };
      assert(
        charge.card_ref !== null && charge.installments !== null,
        'charge.card-has-ref-and-installments',
        card,
      );
      const result = await acquirer.authorize({
        reference,
        cardRef: charge.card_ref,
        amountCents,
        installments: charge.installments,
        capture: charge.capture_method === 'automatic',
        ...(securityCode !== undefined ? { securityCode } : {}),
      });
      return fromResult(result, (value) => ({ kind: 'authorization', value }));
    }
    case 'pix': {
      assert(charge.pix_expires_in !== null, 'charge.pix-has-expires-in', { charge_id: charge.id });
      const result = await acquirer.createPixCharge({
        reference,
        amountCents,
        expiresInSeconds: charge.pix_expires_in,
      });
      return fromResult(result, (value) => ({ kind: 'pix', value }));
    }
    case 'boleto': {
      assert(charge.boleto_due_date !== null, 'charge.boleto-has-due-date', {
        charge_id: charge.id,
      });
      const buyer = JSON.parse(charge.buyer_json) as Buyer;
      const result = await acquirer.registerBoleto({
        reference,
        amountCents,
        dueDate: charge.boleto_due_date,
        payer: boletoPayerOf(buyer),
      });
      return fromResult(result, (value) => ({ kind: 'boleto', value }));
    }
  }
}

/**
 * Asks the provider what became of an intent whose answer was lost. `null`: the provider never received
 * it (safe to send again with the same reference); `unknown`: it cannot tell yet.
 */
export async function lookUpProvider(
  deps: ChargesDeps,
  charge: ChargeRow,
): Promise<ProviderOutcome | null> {
  let outcome: ProviderOutcome;
  let notFound = false;
  const acquirer = await acquirerFor(deps, charge);
  switch (charge.payment_method) {
    case 'credit_card':
    case 'debit_card': {
      const result = await acquirer.getAuthorization(charge.id);
      notFound = !result.ok && result.kind === 'not_found';
      outcome = fromResult(result, (value) => ({ kind: 'authorization', value }));
      break;
    }
    case 'pix': {
      const result = await acquirer.getPixCharge(charge.id);
      notFound = !result.ok && result.kind === 'not_found';
      outcome = fromResult(result, (value) => ({ kind: 'pix', value }));
      break;
    }
    case 'boleto': {
      const result = await acquirer.getBoleto(charge.id);
      notFound = !result.ok && result.kind === 'not_found';
      outcome = fromResult(result, (value) => ({ kind: 'boleto', value }));
      break;
    }
  }
  if (notFound) return null;
  // A lookup that the provider refuses, or cannot serve now, tells nothing: try again later.
  if (outcome.kind === 'unreachable' || outcome.kind === 'rejected')
    return { kind: 'unknown', message: outcome.message };
  return outcome;
}

const at = (iso: string | null, fallback: Date): Date => (iso === null ? fallback : new Date(iso));

/** The row change and the state-machine trigger for a provider outcome. */
function decide(
  charge: ChargeRow,
  outcome: ProviderOutcome,
  acquirerCode: string,
  now: Date,
): { patch: ChargePatch; trigger: ChargeTrigger | null } {
  switch (outcome.kind) {
    case 'unknown':
      return { patch: {}, trigger: null };
    case 'unreachable':
      return {
        patch: {
          outcome_known: true,
          acquirer_code: acquirerCode,
          refused_reason: null,
          acquirer_return_message:
            'The payment provider could not be reached; nothing was charged.',
        },
        trigger: 'provider_failed',
      };
    case 'rejected':
      return {
        patch: {
          outcome_known: true,
          acquirer_code: acquirerCode,
          refused_reason: null,
          acquirer_return_message: `The payment provider refused the request (${outcome.code}); nothing was charged.`,
        },
        trigger: 'provider_failed',
      };
    case 'authorization': {
      const v = outcome.value;
      const patch: ChargePatch = {
        outcome_known: true,
        acquirer_code: acquirerCode,
        acquirer_transaction_id: v.transactionId,
        authorization_code: v.authorizationCode,
        acquirer_return_code: v.returnCode,
        acquirer_return_message: v.returnMessage,
        refused_reason: v.refusedReason,
      };
      switch (v.status) {
        case 'captured':
          return {
            patch: {
              ...patch,
              authorized_at: at(v.createdAt, now),
              paid_at: at(v.capturedAt, now),
            },
            trigger: 'sale_approved',
          };
        case 'authorized':
          return {
            patch: { ...patch, authorized_at: at(v.createdAt, now) },
            trigger: 'authorization_approved',
          };
        case 'refused':
          return { patch, trigger: 'authorization_refused' };
        case 'failed':
          return { patch, trigger: 'provider_failed' };
        case 'canceled':
          // Voided before we ever saw it approved: nothing was charged.
          return {
            patch: {
              ...patch,
              acquirer_return_message: v.returnMessage ?? 'The authorization was voided.',
            },
            trigger: 'provider_failed',
          };
      }
      break;
    }
    case 'pix': {
      const v = outcome.value;
      const patch: ChargePatch = {
        outcome_known: true,
        acquirer_code: acquirerCode,
        acquirer_transaction_id: v.txid,
        pix_qr_code: v.qrCode,
        pix_expires_at: new Date(v.expiresAt),
      };
      if (v.status === 'paid')
        return { patch: { ...patch, paid_at: at(v.paidAt, now) }, trigger: 'payment_confirmed' };
      if (v.status === 'expired')
        return { patch: { ...patch, canceled_at: now }, trigger: 'pix_expired' };
      return { patch, trigger: null };
    }
    case 'boleto': {
      const v = outcome.value;
      const patch: ChargePatch = {
        outcome_known: true,
        acquirer_code: acquirerCode,
        boleto_barcode: v.barcode,
        boleto_digitable_line: v.digitableLine,
        boleto_due_date: v.dueDate,
      };
      if (v.status === 'paid')
        return { patch: { ...patch, paid_at: at(v.paidAt, now) }, trigger: 'payment_confirmed' };
      return { patch, trigger: null };
    }
  }
  assert(false, 'charge.provider-outcome-handled', { charge_id: charge.id });
}

/** What a card charge's provider outcome says of the authorization; null when it says nothing yet, or is no card. */
function authorizationOutcome(
  charge: ChargeRow,
  outcome: ProviderOutcome,
): AuthorizationOutcome | null {
  if (charge.payment_method !== 'credit_card' && charge.payment_method !== 'debit_card')
    return null;
  switch (outcome.kind) {
    case 'authorization': {
      const status = outcome.value.status;
      return status === 'captured' || status === 'authorized'
        ? 'approved'
        : status === 'refused'
          ? 'declined'
          : 'failed';
    }
    case 'unreachable':
    case 'rejected':
      return 'failed';
    default:
      return null;
  }
}

/** The create answer of a charge: 201 and the charge as POST /charges shows it. */
export const createdOutcome = (charge: ChargeRow): Outcome => ({
  status: 201,
  body: chargeResource(charge, { withSplit: false }),
});

/**
 * Saves a provider outcome on a charge intent, in `trx`: the new status, charge-created (once) and the
 * status's event, and the create answer under the request's Idempotency-Key (`session`), or, from the
 * recovery, under any key still waiting for this charge. An intent already settled (the request and the
 * recovery raced) is left as it is.
 *
 * `seen`: the intent as the caller wrote it (the create request). The outcome is decided from it, with no
 * locked read first, and written at commit by one guarded UPDATE in the commit's one statement (with the
 * events and the key's answer); if anything changed the row (the recovery got there first), the transaction
 * rolls back with ChargeChanged, and the caller settles again without `seen`: the row is read under lock and
 * decided again.
 */
export async function settleIntent(
  deps: ChargesDeps,
  trx: Tx,
  chargeId: string,
  outcome: ProviderOutcome,
  announcer: Announcer,
  session: IdempotencySession | null,
  seen?: ChargeRow,
): Promise<ChargeRow> {
  let charge: ChargeRow;
  if (seen !== undefined && !seen.outcome_known)
    charge = await applyOutcome(deps, trx, seen, outcome, announcer, 'if-unchanged');
  else {
    const current = await lockCharge(trx, null, chargeId);
    assert(current !== undefined, 'charge.present-under-lock', { charge_id: chargeId });
    charge = current.outcome_known
      ? current
      : await applyOutcome(deps, trx, current, outcome, announcer, 'locked');
  }
  const answer = createdOutcome(charge);
  if (session !== null) await session.complete(trx, answer);
  else if (charge.outcome_known) await completeKeysOf(trx, chargeId, answer);
  return charge;
}

/**
 * Writes the outcome decided from `current` (an intent whose outcome is not known) and announces it. `locked`:
 * the caller holds the row. `if-unchanged`: written at commit only if the row still has every field the
 * decision read; the transaction rolls back with ChargeChanged if it no longer has.
 */
async function applyOutcome(
  deps: ChargesDeps,
  trx: Tx,
  current: ChargeRow,
  outcome: ProviderOutcome,
  announcer: Announcer,
  mode: 'locked' | 'if-unchanged',
): Promise<ChargeRow> {
  const now = deps.clock.now();
  const { patch, trigger } = decide(
    current,
    outcome,
    current.acquirer_code ?? deps.acquirers.simulator.code,
    now,
  );
  let status = current.status;
  if (trigger !== null) {
    const next = transition(
      { status: current.status, statusBeforeChargeback: current.status_before_chargeback },
      trigger,
    );
    assert(next !== null, 'charge.transition-exists', {
      charge_id: current.id,
      trigger,
      status: current.status,
    });
    status = next;
  }
  const change: ChargePatch = {
    ...patch,
    status,
    announced: true,
    ...(Object.keys(patch).length > 0 || !current.announced ? { updated_at: now } : {}),
  };
  const charge =
    mode === 'locked'
      ? await updateCharge(trx, current.id, change)
      : updateChargeAtCommitIfUnchanged(trx, current, change);
  await announceCharge(announcer, trx, charge, {
    created: !current.announced,
    statusChanged: status !== current.status,
  });
  const authorization = trigger === null ? null : authorizationOutcome(current, outcome);
  if (authorization !== null) countAuthorization(trx, charge, authorization);
  return charge;
}
