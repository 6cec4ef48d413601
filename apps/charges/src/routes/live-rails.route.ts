import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TLiteral } from '@sinclair/typebox';
import {
  BOLETO_PROVIDERS,
  CARD_PROVIDERS,
  CREDENTIALS_NAME_PATTERN,
  mask,
  PIX_PROVIDERS,
  RAIL_KINDS,
  type LiveRails,
  type RailKind,
} from '@pgw/acquirer';
import { isId } from '@pgw/domain';
import { ApiError, notFound, RequestIdSchema, requireOperator } from '@pgw/platform-http';
import { findLiveRails, saveLiveRails, type StoredLiveRails } from '../data/live-rails.repository';
import type { ChargesDeps } from '../operations/deps';

// PUT/GET /admin/v1/tenants/{tenant_id}/live-rails (issue 23 item 4), and PUT …/live-rails/pix/webhook
// (the Pix account's webhook registered at its PSP): which live adapter moves a tenant's
// card, Pix and boleto money. The body names providers and a credentials name only; the secrets stay in
// the deployment's environment and files (LIVE_RAIL_<NAME>_…), and the answer shows each rail's
// non-secret settings masked, or which variable its credentials lack. Charges keeps this because charges
// routes every call of a charge; the vault reads its tenant's card rail from here (INTERNAL_LIVE_RAILS_PATH).

export const LIVE_RAILS_PATH = '/admin/v1/tenants/:tenant_id/live-rails';
export const PIX_WEBHOOK_PATH = '/admin/v1/tenants/:tenant_id/live-rails/pix/webhook';
export const INTERNAL_LIVE_RAILS_PATH = '/internal/v1/live-rails';
/** The one request whose principal the vault forwards here (see the vault's tokenize route). */
export const TOKENIZATION = 'POST /api/v1/payment-methods/tokenize';

const strict = { additionalProperties: false } as const;

const choiceOf = <P extends string>(providers: readonly P[], description: string) =>
  Type.Union([
    Type.Object(
      {
        provider: Type.Union(
          providers.map((p): TLiteral<P> => Type.Literal(p)),
          { description },
        ),
        credentials: Type.String({
          pattern: CREDENTIALS_NAME_PATTERN,
          description:
            "The name the deployment keeps this account's secrets under: LIVE_RAIL_<NAME>_<the adapter's variable>.",
        }),
      },
      strict,
    ),
    Type.Null(),
  ]);

export const LiveRailsBody = Type.Object(
  {
    card: choiceOf(
      CARD_PROVIDERS,
      'cielo: Cielo API 3.0 (card store, sales, capture, void, refunds).',
    ),
    pix: choiceOf(PIX_PROVIDERS, "bcb-pix: the Banco Central API Pix at the tenant's PSP."),
    boleto: choiceOf(
      BOLETO_PROVIDERS,
      'cnab240-bb: CNAB 240 remittance and return files, Banco do Brasil profile.',
    ),
  },
  {
    ...strict,
    description:
      'Every kind is named: null sends that kind of live payment to the simulator outside production and refuses it in production.',
  },
);

const ShownRail = Type.Union([
  Type.Object(
    {
      provider: Type.String(),
      credentials: Type.String(),
      ready: Type.Boolean({
        description: 'Whether the deployment holds complete credentials under that name.',
      }),
      settings: Type.Record(Type.String(), Type.String(), {
        description: 'Non-secret settings read from the credentials, account numbers masked.',
      }),
      problem: Type.Union([Type.String(), Type.Null()], {
        description:
          'When not ready: the variable or file that is missing or wrong (never a value).',
      }),
    },
    strict,
  ),
  Type.Null(),
]);

export const LiveRailsResource = Type.Object(
  {
    object: Type.Literal('live_rails'),
    tenant_id: Type.String(),
    card: ShownRail,
    pix: ShownRail,
    boleto: ShownRail,
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    request_id: RequestIdSchema,
  },
  strict,
);

const TenantParams = Type.Object({ tenant_id: Type.String() }, strict);

const PixWebhookBody = Type.Object(
  {
    webhook_url: Type.String({
      maxLength: 2_000,
      description:
        'Where the PSP sends its notifications: `https://<ingress>/provider/v1/pix/notifications` (the PSP appends `/pix`). https only: the PSP calls it over mutual TLS.',
    }),
  },
  strict,
);

export const PixWebhookResource = Type.Object(
  {
    object: Type.Literal('pix_webhook'),
    tenant_id: Type.String(),
    provider: Type.String(),
    credentials: Type.String(),
    chave: Type.String({ description: 'The Pix key the webhook is registered for, masked.' }),
    webhook_url: Type.String(),
    request_id: RequestIdSchema,
  },
  strict,
);

const InternalLiveRails = Type.Object(
  {
    card: LiveRailsBody.properties.card,
    pix: LiveRailsBody.properties.pix,
    boleto: LiveRailsBody.properties.boleto,
  },
  strict,
);

function requireTenantId(value: string): string {
  if (!isId('ten_', value)) throw notFound('tenant');
  return value;
}

const NONE: LiveRails = { card: null, pix: null, boleto: null };

function resource(
  deps: ChargesDeps,
  tenantId: string,
  stored: StoredLiveRails | undefined,
  requestId: string,
) {
  const rails = stored?.rails ?? NONE;
  const status = deps.acquirers.describe(rails);
  const shown = (kind: RailKind) => {
    const choice = rails[kind];
    const s = status[kind];
    if (choice === null || s === null) return null;
    return {
      provider: choice.provider,
      credentials: choice.credentials,
      ready: s.ready,
      settings: s.ready ? s.settings : {},
      problem: s.ready ? null : s.problem,
    };
  };
  return {
    object: 'live_rails' as const,
    tenant_id: tenantId,
    card: shown('card'),
    pix: shown('pix'),
    boleto: shown('boleto'),
    updated_at: stored === undefined ? null : stored.updatedAt.toISOString(),
    request_id: requestId,
  };
}

export function liveRailsRoutes(app: FastifyInstance, deps: ChargesDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().put(
    LIVE_RAILS_PATH,
    {
      schema: { params: TenantParams, body: LiveRailsBody, response: { 200: LiveRailsResource } },
      preValidation: async (request) => requireOperator(request),
    },
    async (request) => {
      const tenantId = requireTenantId(request.params.tenant_id);
      const rails: LiveRails = {
        card: request.body.card,
        pix: request.body.pix,
        boleto: request.body.boleto,
      };
      // Credentials the deployment does not hold are refused now, by the variable that is missing, rather
      // than found out by the first live charge.
      const status = deps.acquirers.describe(rails);
      for (const kind of RAIL_KINDS) {
        const s = status[kind];
        if (s !== null && !s.ready)
          throw new ApiError(
            'parameter_invalid',
            `${kind}.credentials: ${s.problem}`,
            `${kind}.credentials`,
          );
      }
      const stored = await deps.db.tx((trx) =>
        saveLiveRails(trx, tenantId, rails, deps.clock.now()),
      );
      request.log.info(
        {
          tenant_id: tenantId,
          card: rails.card?.provider ?? null,
          pix: rails.pix?.provider ?? null,
          boleto: rails.boleto?.provider ?? null,
        },
        'live rails set',
      );
      return resource(deps, tenantId, stored, request.id);
    },
  );

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    LIVE_RAILS_PATH,
    {
      schema: { params: TenantParams, response: { 200: LiveRailsResource } },
      preValidation: async (request) => requireOperator(request),
    },
    async (request) => {
      const tenantId = requireTenantId(request.params.tenant_id);
      return resource(
        deps,
        tenantId,
        await deps.db.read((q) => findLiveRails(q, tenantId)),
        request.id,
      );
    },
  );

  // The registration of the tenant's Pix account's webhook at its PSP (PUT /webhook/{chave} of the API
  // Pix), which the PSP needs once per account before it notifies anything. Idempotent at the PSP: the
  // same URL again changes nothing, another URL replaces it.
  app.withTypeProvider<TypeBoxTypeProvider>().put(
    PIX_WEBHOOK_PATH,
    {
      schema: { params: TenantParams, body: PixWebhookBody, response: { 200: PixWebhookResource } },
      preValidation: async (request) => requireOperator(request),
    },
    async (request) => {
      const tenantId = requireTenantId(request.params.tenant_id);
      const choice = (await deps.db.read((q) => findLiveRails(q, tenantId)))?.rails.pix ?? null;
      if (choice === null)
        throw new ApiError(
          'resource_not_found',
          `This tenant has no live Pix rail: set one with PUT /admin/v1/tenants/${tenantId}/live-rails.`,
        );
      const account = deps.acquirers.pixAccount(choice);
      if (account instanceof Error)
        throw new ApiError(
          'parameter_invalid',
          `pix.credentials: ${account.message}`,
          'pix.credentials',
        );
      const registered = await account.configureWebhook(request.body.webhook_url);
      if (!registered.ok) {
        // The URL the adapter or the PSP refuses is the operator's to fix; a PSP that cannot answer now is
        // asked again by the operator (the registration is idempotent).
        if (registered.kind === 'rejected')
          throw new ApiError('parameter_invalid', registered.message, 'webhook_url');
        throw new ApiError(
          'provider_unavailable',
          `The PSP did not register the webhook: ${registered.message}`,
        );
      }
      request.log.info(
        { tenant_id: tenantId, provider: choice.provider, credentials: choice.credentials },
        'pix webhook registered at the PSP',
      );
      return {
        object: 'pix_webhook' as const,
        tenant_id: tenantId,
        provider: choice.provider,
        credentials: choice.credentials,
        chave: mask(registered.value.chave),
        webhook_url: registered.value.webhookUrl,
        request_id: request.id,
      };
    },
  );

  // For the vault: the card rail of the tokenizing key's tenant. Scoped by the principal the vault
  // forwards (signed by the gateway for the tokenize request); only the choice, never a secret.
  app.get(
    INTERNAL_LIVE_RAILS_PATH,
    { schema: { response: { 200: InternalLiveRails } }, config: { principalFrom: [TOKENIZATION] } },
    async (request: FastifyRequest) => {
      const principal = request.principal;
      if (principal === null || principal.kind !== 'api_key')
        throw new ApiError('principal_invalid', 'This route needs an API key principal.');
      const stored = await deps.db.read((q) => findLiveRails(q, principal.tenantId));
      return stored?.rails ?? NONE;
    },
  );
}
