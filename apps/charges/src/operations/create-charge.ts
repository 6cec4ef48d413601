import { acquirerCodeFor, type RailKind } from '@pgw/acquirer';
import { assert, newId } from '@pgw/domain';
import { ApiError, type ApiKeyPrincipal } from '@pgw/platform-http';
import type { IdempotencySession, Outcome } from '@pgw/platform-idempotency';
import { isCard } from '@pgw/charges-domain/charge';
import type { NewCharge } from '@pgw/charges-domain/charge-input';
import { ChargeChanged, insertChargeSql, type ChargeRow } from '../data/charge.repository';
import { kycStatusOf, sellersOfTenant } from '../data/seller.repository';
import { railOfNewCharge } from './card-rail';
import { createdOutcome, requestProvider, settleIntent } from './charge-outcome';
import type { ChargesDeps, RequestContext } from './deps';
import { lookupToken } from './vault.client';

/** The request, with the principal header it carried: the vault scopes the card token as for the caller. */
export interface ChargeRequestContext extends RequestContext {
  principalHeader: () => string;
}

/** The charge as the route read it: the checked input, its rail's kind, and the security code (memory only). */
export interface ChargeOrder {
  input: NewCharge;
  railKind: RailKind;
  securityCode: string | undefined;
}

/**
 * A new charge: load the token and the split recipients (reads only) → take the key and save the intent,
 * and commit → ask the provider → save the outcome with its events and the key's answer, and commit. Two
 * commits per charge, one statement each. The provider is never called inside a transaction, and the intent
 * is committed before it is called, so a crash in between leaves a pending charge that the recovery resolves
 * by reference (charge-states.md).
 */
export async function createCharge(
  deps: ChargesDeps,
  context: ChargeRequestContext,
  principal: ApiKeyPrincipal,
  { input, railKind, securityCode }: ChargeOrder,
  session: IdempotencySession,
): Promise<Outcome> {
  const owner = await resolveOwner(deps, context, input, principal);
  await checkSplitRecipients(deps, principal.tenantId, owner.sellerId, input);

  // The rail is decided once (a stored card's own, else the tenant's now): the charge records the one
  // that serves it, and every call about it (this authorization included) goes there.
  const acquirerRail = await railOfNewCharge(
    deps,
    context.log,
    { tenantId: principal.tenantId, livemode: principal.livemode },
    railKind,
    owner.cardRail,
  );
  const now = deps.clock.now();
  const intent: ChargeRow = {
    id: newId('ch_'),
    tenant_id: principal.tenantId,
    livemode: principal.livemode,
    seller_id: owner.sellerId,
    status: 'pending',
    amount_cents: input.amountCents,
    currency: input.currency,
    payment_method: input.paymentMethod,
    capture_method: input.captureMethod,
    installments: input.installments,
    card_token: input.cardToken,
    card_ref: owner.cardRef,
    card_brand: owner.cardBrand,
    buyer_json: JSON.stringify(input.buyer),
    metadata_json: input.metadata === null ? null : JSON.stringify(input.metadata),
    split_json: JSON.stringify(
      input.split.map((s) => ({
        recipient_seller_id: s.recipientSellerId,
        amount_cents: s.amountCents,
      })),
    ),
    acquirer_code: acquirerCodeFor(
      deps.acquirers.forRecordedRail(principal.livemode, railKind, acquirerRail),
      railKind,
    ),
    acquirer_rail: acquirerRail,
    acquirer_transaction_id: null,
    authorization_code: null,
    acquirer_return_code: null,
    acquirer_return_message: null,
    refused_reason: null,
    pix_expires_in: input.pix?.expiresInSeconds ?? null,
    pix_qr_code: null,
    pix_expires_at: null,
    boleto_due_date: input.boleto?.dueDate ?? null,
    boleto_barcode: null,
    boleto_digitable_line: null,
    outcome_known: false,
    announced: false,
    refunded_cents: 0,
    chargeback_cents: 0,
    status_before_chargeback: null,
    authorized_at: null,
    paid_at: null,
    canceled_at: null,
    created_at: now,
    updated_at: now,
  };
  // The key, the intent and the link between them commit together (one statement), before the provider is
  // called: a twin waits on the key's row and then finds it in use, and a crash after this commit leaves an
  // intent that the recovery resolves and whose key it completes.
  await session.claimWith(deps.db, intent.id, [insertChargeSql(deps.db.knex, intent)]);

  const outcome = await requestProvider(deps, intent, securityCode);
  if (outcome.kind !== 'authorization' && outcome.kind !== 'pix' && outcome.kind !== 'boleto') {
    context.log.warn(
      { charge_id: intent.id, provider_outcome: outcome.kind },
      'provider did not settle the charge',
    );
  }
  const announcer = { db: deps.db, requestId: context.requestId };
  // Decided from the intent as written, with no read: its writes (the guarded update, the events, the key's
  // answer) are one statement and commit alone. Settled again under lock if the recovery got there first.
  const charge = await deps.db
    .writeTogether((unit) =>
      settleIntent(deps, unit, intent.id, outcome, announcer, session, intent),
    )
    .catch((error: unknown) => {
      if (!(error instanceof ChargeChanged)) throw error;
      return deps.db.tx((trx) => settleIntent(deps, trx, intent.id, outcome, announcer, session));
    });
  context.log.info(
    { charge_id: charge.id, status: charge.status, payment_method: charge.payment_method },
    'charge created',
  );
  return createdOutcome(charge);
}

/**
 * Whose money this is. A card charge belongs to its token's seller (the vault answers only for tokens in
 * the caller's tenant and environment, and of the key's seller when the key is seller-scoped); Pix and
 * boleto belong to the key's seller (checked by readCreateCharge).
 */
async function resolveOwner(
  deps: ChargesDeps,
  context: ChargeRequestContext,
  input: NewCharge,
  key: { tenantId: string; livemode: boolean; sellerId: string | null },
): Promise<{
  sellerId: string;
  cardRef: string | null;
  cardRail: string | null;
  cardBrand: string | null;
}> {
  const keySellerId = key.sellerId;
  if (!isCard(input.paymentMethod)) {
    assert(keySellerId !== null, 'charge.pix-or-boleto-has-seller-at-owner-check');
    return { sellerId: keySellerId, cardRef: null, cardRail: null, cardBrand: null };
  }
  assert(input.cardToken !== null, 'charge.card-has-token-at-owner-check');
  const token = await lookupToken(deps.peers, {
    tokenId: input.cardToken,
    scope: { tenantId: key.tenantId, livemode: key.livemode, sellerId: keySellerId },
    principalHeader: context.principalHeader(),
    requestId: context.requestId,
    timeoutMs: deps.config.vaultTimeoutMs,
  });
  // An unknown token is a field the request got wrong, not a missing resource of the URL: 422 on
  // card_token (parameter_invalid), the same answer for a token of another tenant, environment or seller.
  if (token === null)
    throw new ApiError('parameter_invalid', 'card_token: no such token', 'card_token');
  // The gateway checked the KYC of a seller-scoped key's seller, read-your-writes; a tenant-wide key's
  // charge belongs to the token's seller, known only now: charges' copy of the directory decides (it
  // follows the gateway within the seconds of contract §4b; a seller it has no status for yet passes).
  if (keySellerId === null) {
    const kyc = await deps.db.read((q) => kycStatusOf(q, key.tenantId, token.sellerId));
    if (kyc !== null && kyc !== 'approved')
      throw new ApiError('seller_kyc_required', "The seller's KYC is not approved.");
  }
  return {
    sellerId: token.sellerId,
    cardRef: token.cardRef,
    cardRail: token.cardRail,
    cardBrand: token.brand,
  };
}

/** Recipients must be other sellers of the same tenant, as charges' copy of the directory knows them. */
async function checkSplitRecipients(
  deps: ChargesDeps,
  tenantId: string,
  ownSellerId: string,
  input: NewCharge,
): Promise<void> {
  if (input.split.length === 0) return;
  const known = await deps.db.read((q) =>
    sellersOfTenant(
      q,
      tenantId,
      input.split.map((s) => s.recipientSellerId),
    ),
  );
  for (const [index, item] of input.split.entries()) {
    const param = `split.${index}.recipient_seller_id`;
    if (item.recipientSellerId === ownSellerId)
      throw new ApiError(
        'split_invalid',
        `${param}: is the charge's own seller, who receives the remainder`,
        param,
      );
    if (!known.has(item.recipientSellerId))
      throw new ApiError('split_invalid', `${param}: no such seller in this tenant`, param);
  }
}
