import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { assertLiveAllowed, type AcquirerPort, type LiveModeGuard } from '@pgw/acquirer';
import {
  assert,
  detectBrand,
  fingerprint,
  luhnValid,
  newId,
  normalizePan,
  Redacted,
} from '@pgw/domain';
import type { Db } from '@pgw/platform-db';
import {
  ApiError,
  nestsDeeperThan,
  RequestIdSchema,
  sellerPrincipal,
  serializesLongerThan,
  type ApiKeyPrincipal,
} from '@pgw/platform-http';
import type { Clock } from '@pgw/platform-service';
import type { VaultKeys } from '../config';
import { insertToken, sealDetails } from '../data/token.repository';

export const TOKENIZE_PATH = '/api/v1/payment-methods/tokenize';
export const TOKEN_ID_PATTERN = '^tok_[A-Za-z0-9_\\-]+$';

const strict = { additionalProperties: false } as const;

/**
 * Levels of objects and arrays in `metadata`, itself the first. api-v1 leaves metadata free-form; this
 * bound is not a taste but a stack: sealing serializes it with JSON.stringify, which overflows at ~10,000
 * levels (a 60 KB body) and answered 500 after the card had already gone to the card store.
 */
export const METADATA_DEPTH_MAX = 32;
/** Serialized characters of `metadata`: the same bound as POST /charges (api-v1's metadata size). */
export const METADATA_CHARS_MAX = 4096;

// api-v1 "POST /payment-methods/tokenize": every rule of the table, unknown fields refused at every level.
const CardSchema = Type.Object(
  {
    number: Type.String({ minLength: 12, maxLength: 32, pattern: '^[0-9 -]+$' }),
    exp_month: Type.Integer({ minimum: 1, maximum: 12 }),
    exp_year: Type.Integer({ minimum: 2026, maximum: 2100 }),
    cvv: Type.String({ pattern: '^[0-9]{3,4}$' }),
    holder_name: Type.String({ minLength: 2, maxLength: 120 }),
  },
  strict,
);

const BillingAddressSchema = Type.Object(
  {
    country: Type.Optional(Type.String({ maxLength: 2 })),
    zip_code: Type.Optional(Type.String({ maxLength: 20 })),
    state: Type.Optional(Type.String({ maxLength: 80 })),
    city: Type.Optional(Type.String({ maxLength: 120 })),
    line_1: Type.Optional(Type.String({ maxLength: 160 })),
    line_2: Type.Optional(Type.String({ maxLength: 160 })),
  },
  strict,
);

export const TokenizeBody = Type.Object(
  {
    card: CardSchema,
    billing_address: Type.Optional(BillingAddressSchema),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  strict,
);
type TokenizeBodyType = Static<typeof TokenizeBody>;

// The answer is this allowlist and nothing else: whatever a handler returns, only these fields are
// serialized, so card data cannot leak through a response by mistake.
export const TokenResource = Type.Object(
  {
    id: Type.String({ pattern: TOKEN_ID_PATTERN }),
    object: Type.Literal('payment_method_token'),
    type: Type.Literal('card'),
    brand: Type.String(),
    last4: Type.String({ pattern: '^[0-9]{4}$' }),
    exp_month: Type.Integer({ minimum: 1, maximum: 12 }),
    exp_year: Type.Integer(),
    livemode: Type.Boolean(),
    environment: Type.Union([Type.Literal('TEST'), Type.Literal('LIVE')]),
    seller_id: Type.String({ pattern: '^seller_[A-Za-z0-9_\\-]+$' }),
    request_id: RequestIdSchema,
  },
  strict,
);

const PERMISSION = 'payment_methods:tokenize';

/**
 * Tokenize: validate → card store (the PAN leaves here, once) → keep the public facts, the fingerprint and
 * the sealed extras → answer the token. The PAN and the CVV exist only in this request's memory, wrapped
 * in Redacted (@pgw/domain) so that no log line or serializer can print them.
 */
export interface TokenizeDeps {
  db: Db;
  clock: Clock;
  keys: VaultKeys;
  /**
   * The card store of the key's tenant and mode, whether it is a live rail of the tenant's (the
   * simulator in test mode; in live mode the tenant's card acquirer, or the simulator as a sandbox), and
   * that rail as charges records it (`railRecordOf`), kept with the token.
   */
  acquirerFor(
    request: FastifyRequest,
    principal: ApiKeyPrincipal,
  ): Promise<{ acquirer: AcquirerPort; liveRail: boolean; rail: string }>;
  liveGuard: LiveModeGuard;
}

export function tokenizeRoute(app: FastifyInstance, deps: TokenizeDeps): void {
  const { db, clock, keys, liveGuard } = deps;
  const principals = new WeakMap<
    FastifyRequest,
    { principal: ApiKeyPrincipal & { sellerId: string }; acquirer: AcquirerPort; rail: string }
  >();

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    TOKENIZE_PATH,
    {
      schema: { body: TokenizeBody, response: { 201: TokenResource } },
      preValidation: async (request) => {
        // Permission and seller scope, before the body is even looked at (401/403 before 422). KYC is the
        // gateway's: it owns the sellers and reads their status at request time (contract §4b); a copy fed
        // by events here could refuse a seller the operator has just approved.
        const principal = sellerPrincipal(request, PERMISSION);
        const { acquirer, liveRail, rail } = await deps.acquirerFor(request, principal);
        // Before the body is read: a live card never reaches the simulator of a production deployment.
        assertLiveAllowed(liveGuard, principal.livemode, liveRail);
        principals.set(request, { principal, acquirer, rail });
      },
    },
    async (request, reply) => {
      const checked = principals.get(request);
      assert(checked !== undefined, 'tokenize.principal-checked');
      const { principal, acquirer, rail } = checked;
      const { card, billing_address: billingAddress, metadata } = request.body;
      const pan = new Redacted(normalizePan(card.number));
      // The CVV's shape is validated by the schema; the card store needs no verification here, so the
      // value is dropped now. It is never sent, logged or stored.
      const holderName = card.holder_name;
      dropCardData(request.body);

      if (metadata !== undefined && nestsDeeperThan(metadata, METADATA_DEPTH_MAX)) {
        throw new ApiError(
          'parameter_invalid',
          `metadata: must not nest objects and arrays more than ${METADATA_DEPTH_MAX} levels deep`,
          'metadata',
        );
      }
      if (metadata !== undefined && serializesLongerThan(metadata, METADATA_CHARS_MAX)) {
        throw new ApiError(
          'parameter_invalid',
          `metadata: must be at most ${METADATA_CHARS_MAX} characters once serialized`,
          'metadata',
        );
      }
      const digits = pan.expose();
      if (digits === null)
        throw new ApiError(
          'card_number_invalid',
          'card.number: must have 12 to 19 digits',
          'card.number',
        );
      if (!luhnValid(digits))
        throw new ApiError(
          'card_number_invalid',
          'card.number: is not a valid card number',
          'card.number',
        );

      const id = newId('tok_');
      const scope = { tenantId: principal.tenantId, livemode: principal.livemode };
      // Sealed before the PAN leaves: nothing that can fail on the extras happens after the card is stored.
      const sealed = sealDetails(keys.keyring, id, scope, {
        billing_address: billingAddress ?? null,
        metadata: metadata ?? null,
      });
      const stored = await acquirer.storeCard({
        reference: id,
        number: digits,
        expMonth: card.exp_month,
        expYear: card.exp_year,
        holderName,
      });
      if (!stored.ok) {
        if (stored.kind === 'rejected' && stored.code === 'card_number_invalid') {
          throw new ApiError(
            'card_number_invalid',
            'card.number: is not a valid card number',
            'card.number',
          );
        }
        request.log.warn(
          {
            acquirer: acquirer.code,
            kind: stored.kind,
            ...(stored.kind === 'rejected' ? { code: stored.code } : {}),
          },
          'card store failed',
        );
        throw new ApiError('provider_unavailable', 'The card store is unavailable; try again.');
      }

      const row = {
        id,
        tenant_id: principal.tenantId,
        seller_id: principal.sellerId,
        livemode: principal.livemode,
        card_ref: stored.value.cardRef,
        // The card store that holds card_ref: the token's charges go there after the tenant's rails change.
        card_rail: rail,
        brand: detectBrand(digits),
        last4: digits.slice(-4),
        exp_month: card.exp_month,
        exp_year: card.exp_year,
        holder_name: holderName,
        fingerprint: fingerprint(digits, keys.fingerprintKey.expose()),
        ...sealed,
        created_at: clock.now(),
      };
      await db.tx((trx) => insertToken(trx, row));
      request.log.info({ token_id: id, brand: row.brand }, 'card tokenized');

      return reply.code(201).send({
        id,
        object: 'payment_method_token' as const,
        type: 'card' as const,
        brand: row.brand,
        last4: row.last4,
        exp_month: row.exp_month,
        exp_year: row.exp_year,
        livemode: principal.livemode,
        environment: principal.livemode ? ('LIVE' as const) : ('TEST' as const),
        seller_id: principal.sellerId,
        request_id: request.id,
      });
    },
  );
}

/** Shortens the life of card data in memory: the parsed body no longer holds the number or the CVV. */
function dropCardData(body: TokenizeBodyType): void {
  const card = body.card as Partial<TokenizeBodyType['card']>;
  delete card.number;
  delete card.cvv;
}
