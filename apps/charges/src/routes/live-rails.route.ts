import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static, type TLiteral } from '@sinclair/typebox';
import { BOLETO_PROVIDERS, CARD_PROVIDERS, CREDENTIALS_NAME_PATTERN, PIX_PROVIDERS, RAIL_KINDS, type LiveRails, type RailKind } from '@pgw/acquirer';
import { isId } from '@pgw/domain';
import { ApiError, notFound, RequestIdSchema, requireOperator } from '@pgw/platform-http';
import { findLiveRails, saveLiveRails, type StoredLiveRails } from '../data/live-rails.repository';
import type { ChargesDeps } from '../operations/deps';

// PUT/GET /admin/v1/tenants/{tenant_id}/live-rails (issue 23 item 4): which live adapter moves a tenant's
// card, Pix and boleto money. The body names providers and a credentials name only; the secrets stay in
// the deployment's environment and files (LIVE_RAIL_<NAME>_…), and the answer shows each rail's
// non-secret settings masked, or which variable its credentials lack. Charges keeps this because charges
// routes every call of a charge; the vault reads its tenant's card rail from here (INTERNAL_LIVE_RAILS_PATH).

export const LIVE_RAILS_PATH = '/admin/v1/tenants/:tenant_id/live-rails';
export const INTERNAL_LIVE_RAILS_PATH = '/internal/v1/live-rails';
/** The one request whose principal the vault forwards here (see the vault's tokenize route). */
export const TOKENIZATION = 'POST /api/v1/payment-methods/tokenize';

const strict = { additionalProperties: false } as const;

const choiceOf = <P extends string>(providers: readonly P[], description: string) =>
  Type.Union(
    [
      Type.Object(
        {
          provider: Type.Union(providers.map((p): TLiteral<P> => Type.Literal(p)), { description }),
          credentials: Type.String({ pattern: CREDENTIALS_NAME_PATTERN, description: 'The name the deployment keeps this account\'s secrets under: LIVE_RAIL_<NAME>_<the adapter\'s variable>.' }),
        },
        strict,
      ),
      Type.Null(),
    ],
  );

export const LiveRailsBody = Type.Object(
  {
    card: choiceOf(CARD_PROVIDERS, 'cielo: Cielo API 3.0 (card store, sales, capture, void, refunds).'),
    pix: choiceOf(PIX_PROVIDERS, 'bcb-pix: the Banco Central API Pix at the tenant\'s PSP.'),
    boleto: choiceOf(BOLETO_PROVIDERS, 'cnab240-bb: CNAB 240 remittance and return files, Banco do Brasil profile.'),
  },
  { ...strict, description: 'Every kind is named: null sends that kind of live payment to the simulator outside production and refuses it in production.' },
);
type LiveRailsBodyValue = Static<typeof LiveRailsBody>;

const ShownRail = Type.Union([
  Type.Object(
    {
      provider: Type.String(),
      credentials: Type.String(),
      ready: Type.Boolean({ description: 'Whether the deployment holds complete credentials under that name.' }),
      settings: Type.Record(Type.String(), Type.String(), { description: 'Non-secret settings read from the credentials, account numbers masked.' }),
      problem: Type.Union([Type.String(), Type.Null()], { description: 'When not ready: the variable or file that is missing or wrong (never a value).' }),
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

const InternalLiveRails = Type.Object({ card: LiveRailsBody.properties.card, pix: LiveRailsBody.properties.pix, boleto: LiveRailsBody.properties.boleto }, strict);

function requireTenantId(value: string): string {
  if (!isId('ten_', value)) throw notFound('tenant');
  return value;
}

const NONE: LiveRails = { card: null, pix: null, boleto: null };

function resource(deps: ChargesDeps, tenantId: string, stored: StoredLiveRails | undefined, requestId: string) {
  const rails = stored?.rails ?? NONE;
  const status = deps.acquirers.describe(rails);
  const shown = (kind: RailKind) => {
    const choice = rails[kind];
    const s = status[kind];
    if (choice === null || s === null) return null;
    return { provider: choice.provider, credentials: choice.credentials, ready: s.ready, settings: s.ready ? s.settings : {}, problem: s.ready ? null : s.problem };
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
  app.put<{ Params: { tenant_id: string }; Body: LiveRailsBodyValue }>(
    LIVE_RAILS_PATH,
    { schema: { params: TenantParams, body: LiveRailsBody, response: { 200: LiveRailsResource } }, preValidation: async (request) => requireOperator(request) },
    async (request) => {
      const tenantId = requireTenantId(request.params.tenant_id);
      const rails: LiveRails = { card: request.body.card, pix: request.body.pix, boleto: request.body.boleto };
      // Credentials the deployment does not hold are refused now, by the variable that is missing, rather
      // than found out by the first live charge.
      const status = deps.acquirers.describe(rails);
      for (const kind of RAIL_KINDS) {
        const s = status[kind];
        if (s !== null && !s.ready) throw new ApiError('parameter_invalid', `${kind}.credentials: ${s.problem}`, `${kind}.credentials`);
      }
      const stored = await deps.db.tx((trx) => saveLiveRails(trx, tenantId, rails, deps.clock.now()));
      request.log.info({ tenant_id: tenantId, card: rails.card?.provider ?? null, pix: rails.pix?.provider ?? null, boleto: rails.boleto?.provider ?? null }, 'live rails set');
      return resource(deps, tenantId, stored, request.id);
    },
  );

  app.get<{ Params: { tenant_id: string } }>(
    LIVE_RAILS_PATH,
    { schema: { params: TenantParams, response: { 200: LiveRailsResource } }, preValidation: async (request) => requireOperator(request) },
    async (request) => {
      const tenantId = requireTenantId(request.params.tenant_id);
      return resource(deps, tenantId, await deps.db.read((q) => findLiveRails(q, tenantId)), request.id);
    },
  );

  // For the vault: the card rail of the tokenizing key's tenant. Scoped by the principal the vault
  // forwards (signed by the gateway for the tokenize request); only the choice, never a secret.
  app.get(INTERNAL_LIVE_RAILS_PATH, { schema: { response: { 200: InternalLiveRails } }, config: { principalFrom: [TOKENIZATION] } }, async (request: FastifyRequest) => {
    const principal = request.principal;
    if (principal === null || principal.kind !== 'api_key') throw new ApiError('principal_invalid', 'This route needs an API key principal.');
    const stored = await deps.db.read((q) => findLiveRails(q, principal.tenantId));
    return stored?.rails ?? NONE;
  });
}
