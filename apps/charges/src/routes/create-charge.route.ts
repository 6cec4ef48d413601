import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { assertLiveAllowed, RAIL_KINDS, type LiveModeGuard } from '@pgw/acquirer';
import { ApiError, apiPrincipal } from '@pgw/platform-http';
import { idempotent, type IdempotentOptions } from '@pgw/platform-idempotency';
import { readCreateCharge } from '@pgw/charges-domain/charge-input';
import { railKindOf } from '../operations/acquirer-for';
import { createCharge } from '../operations/create-charge';
import type { ChargesDeps } from '../operations/deps';
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
 * POST /api/v1/charges: the permission, the body (schema, then charge-input.ts), the live guard, then
 * operations/create-charge.ts under the Idempotency-Key.
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
      return idempotent(request, reply, deps, principal, keyOptions, (session) =>
        createCharge(
          deps,
          {
            requestId: request.id,
            log: request.log,
            principalHeader: () => principalHeader(request),
          },
          principal,
          { input, railKind, securityCode },
          session,
        ),
      );
    },
  );
}
