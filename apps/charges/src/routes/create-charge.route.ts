import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { acquirerCodeFor, assertLiveAllowed, RAIL_KINDS, type LiveModeGuard } from '@pgw/acquirer';
import { assert, newId } from '@pgw/domain';
import { ApiError, apiPrincipal } from '@pgw/platform-http';
import { idempotent, type IdempotentOptions } from '@pgw/platform-idempotency';
import { isCard } from '@pgw/charges-domain/charge';
import { readCreateCharge, type NewCharge } from '@pgw/charges-domain/charge-input';
import { insertCharge, type ChargeRow } from '../data/charge.repository';
import { kycStatusOf, sellersOfTenant } from '../data/seller.repository';
import { createdOutcome, requestProvider, settleIntent } from '../operations/charge-outcome';
import { railKindOf } from '../operations/acquirer-for';
import { railOfNewCharge } from '../operations/card-rail';
import type { ChargesDeps } from '../operations/deps';
import { lookupToken } from '../operations/vault.client';
import { ChargeResource } from '../resources';
import { mayReadCharge, principalHeader, scopeOf } from './common';

export const CHARGES_PATH = '/api/v1/charges';

const strict = { additionalProperties: false } as const;

// api-v1 "POST /charges": every rule a schema can state, unknown fields refused at every level (the
// platform reports them as parameter_unknown with the dotted path). The rest is in charge-input.ts.
const AddressSchema = Type.Object(
  {
    line_1: Type.String({ minLength: 4, maxLength: 220 }),
    line_2: Type.Optional(Type.String({ maxLength: 220 })),
    zip_code: Type.String({ minLength: 1, maxLength: 20 }),
    city: Type.String({ minLength: 2, maxLength: 120 }),
    state: Type.String({ minLength: 2, maxLength: 80 }),
    country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
  },
  strict,
);

const BuyerSchema = Type.Object(
  {
    name: Type.String({ minLength: 2, maxLength: 255 }),
    email: Type.String({ format: 'email', maxLength: 255 }),
    phone: Type.String({ maxLength: 40 }),
    document: Type.String({ maxLength: 32 }),
    ip: Type.Optional(Type.String({ maxLength: 64 })),
    address: AddressSchema,
  },
  strict,
);

const SplitItemSchema = Type.Object(
  {
    recipient_seller_id: Type.String({ pattern: '^seller_[A-Za-z0-9]+$', maxLength: 255 }),
    amount_cents: Type.Optional(Type.Integer({ minimum: 1 })),
    percentage_bps: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  },
  strict,
);

export const CreateChargeBody = Type.Object(
  {
    // The acquirer's and the boleto's ceiling (10 digits of cents).
    amount: Type.Integer({ minimum: 1, maximum: 9_999_999_999 }),
    currency: Type.Optional(Type.Literal('BRL')),
    payment_method: Type.Union([
      Type.Literal('CREDIT_CARD'),
      Type.Literal('DEBIT_CARD'),
      Type.Literal('PIX'),
      Type.Literal('BOLETO'),
    ]),
    capture_method: Type.Optional(Type.Union([Type.Literal('automatic'), Type.Literal('manual')])),
    installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 })),
    card_token: Type.Optional(Type.String({ pattern: '^tok_[A-Za-z0-9_\\-]+$', maxLength: 255 })),
    security_code: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$' })),
    buyer: BuyerSchema,
    pix: Type.Optional(
      Type.Object(
        { expires_in: Type.Optional(Type.Integer({ minimum: 60, maximum: 86_400 })) },
        strict,
      ),
    ),
    boleto: Type.Optional(
      Type.Object({ due_date: Type.Optional(Type.String({ format: 'date' })) }, strict),
    ),
    split: Type.Optional(Type.Array(SplitItemSchema, { minItems: 1, maxItems: 10 })),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  strict,
);

const PERMISSION = 'charges:create';

/**
 * POST /api/v1/charges: validate → load the token and the split recipients (reads only) → take the key
 * and save the intent, and commit → ask the provider → save the outcome with its events and the key's
 * answer, and commit. Two commits per charge. The provider is never called inside a transaction, and the
 * intent is committed before it is called, so a crash in between leaves a pending charge that the
 * recovery resolves by reference (charge-states.md).
 */
export function createChargeRoute(
  app: FastifyInstance,
  deps: ChargesDeps,
  liveGuard: LiveModeGuard = { refusesLive: false },
): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    CHARGES_PATH,
    {
      schema: { body: CreateChargeBody, response: { 201: ChargeResource } },
      // 401/403 before 422: the permission is checked before the body is looked at.
      preValidation: async (request) => {
        // Contract §6: a production deployment takes no live charge of a tenant without live rails; the
        // rail of this charge's payment method is checked once the body is read.
        const principal = apiPrincipal(request, PERMISSION);
        if (principal.livemode && liveGuard.refusesLive) {
          const allowed = await Promise.all(
            RAIL_KINDS.map((kind) => deps.acquirers.liveAllowed(principal.tenantId, kind)),
          );
          assertLiveAllowed(liveGuard, true, allowed.some(Boolean));
        }
      },
    },
    async (request, reply) => {
      const principal = apiPrincipal(request, PERMISSION);
      const read = readCreateCharge(request.body, {
        keySellerId: principal.sellerId,
        requestIp: principal.clientIp ?? null,
        today: deps.clock.today(),
      });
      if (!read.ok)
        throw new ApiError(read.rejection.code, read.rejection.message, read.rejection.param);
      const input = read.charge;
      const railKind = railKindOf(input.paymentMethod);
      if (principal.livemode && liveGuard.refusesLive)
        assertLiveAllowed(
          liveGuard,
          true,
          await deps.acquirers.liveAllowed(principal.tenantId, railKind),
        );
      // The security code lives in this request's memory only: sent to the acquirer, never stored or
      // logged, and not even hashed under the Idempotency-Key (a hash of 3 digits is the 3 digits).
      const { security_code: securityCode, ...identifying } = request.body;

      const keyOptions: IdempotentOptions = {
        hashed: identifying,
        claim: 'with-work',
        mayRead: mayReadCharge(scopeOf(principal), 'id'),
      };
      return idempotent(request, reply, deps, principal, keyOptions, async (session) => {
        const owner = await resolveOwner(deps, request, input, principal);
        await checkSplitRecipients(deps, principal.tenantId, owner.sellerId, input);

        // The rail is decided once (a stored card's own, else the tenant's now): the charge records the one
        // that serves it, and every call about it (this authorization included) goes there.
        const acquirerRail = await railOfNewCharge(
          deps,
          request.log,
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
        // The key, the intent and the link between them commit together, before the provider is called:
        // a twin waits on the key's row and then finds it in use, and a crash after this commit leaves an
        // intent that the recovery resolves and whose key it completes.
        await deps.db.tx(async (trx) => {
          await session.claim(trx);
          await insertCharge(trx, intent);
          await session.attach(trx, intent.id);
        });

        const outcome = await requestProvider(deps, intent, securityCode);
        if (
          outcome.kind !== 'authorization' &&
          outcome.kind !== 'pix' &&
          outcome.kind !== 'boleto'
        ) {
          request.log.warn(
            { charge_id: intent.id, provider_outcome: outcome.kind },
            'provider did not settle the charge',
          );
        }
        const charge = await deps.db.tx((trx) =>
          settleIntent(
            deps,
            trx,
            intent.id,
            outcome,
            { db: deps.db, requestId: request.id },
            session,
          ),
        );
        request.log.info(
          { charge_id: charge.id, status: charge.status, payment_method: charge.payment_method },
          'charge created',
        );
        return createdOutcome(charge);
      });
    },
  );
}

/**
 * Whose money this is. A card charge belongs to its token's seller (the vault answers only for tokens in
 * the caller's tenant and environment, and of the key's seller when the key is seller-scoped); Pix and
 * boleto belong to the key's seller (checked by readCreateCharge).
 */
async function resolveOwner(
  deps: ChargesDeps,
  request: FastifyRequest,
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
    principalHeader: principalHeader(request),
    requestId: request.id,
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
