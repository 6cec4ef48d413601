import type { ErrorCode } from '@pgw/platform-http';
import { JOB_OWNERS, PARKING_SERVICES } from '../../apps/gateway/src/routes.table';

// What the route schemas cannot say about an operation: its name, its prose, the resource it answers and
// the invalid-request codes its handler can raise. One table keyed by `METHOD url` (the Fastify URL, as
// routes.table.ts and the services write it) rather than fields on each route's schema: the prose is the
// reference's, written in one place in one voice, and it stays off route files that other work edits. It
// cannot drift from the routes: build-document.ts throws when a documented route has no entry here, and
// when an entry here names a route that no service registers.

export interface OperationDoc {
  /** Stable: the SDK's method names and the reference's anchors are derived from it. */
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /**
   * The component the success answer is: the resource it carries (with the answer's request_id beside
   * it), or `<Resource>List` for a page of them. Absent where the answer is no shared resource.
   */
  resource?: string;
  /** The 422 codes this operation can answer besides the schema's own (parameter_missing, parameter_invalid, parameter_unknown). */
  invalid?: readonly ErrorCode[];
  /** Further answers than the gateway's own: 404 for an id in the path comes from the path itself. */
  extra?: readonly ('409' | '502')[];
}

const PAGED =
  'A page of `limit` items (1 to 100, default 50) from page `page` (from 1), newest first; `total` and `total_pages` count every match.';

export const PUBLIC_OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'POST /api/v1/payment-methods/tokenize': {
    operationId: 'tokenizeCard',
    summary: 'Tokenize a card',
    description:
      'Exchanges a card for a `tok_` token that a charge can use. The number and the security code are never stored: the vault keeps the brand, the last four digits, the expiry and a keyed fingerprint. Needs a seller-scoped key whose seller has KYC approved. A number that fails the Luhn check answers `card_number_invalid`; see the test cards in the introduction.',
    tag: 'Payment methods',
    resource: 'Token',
    invalid: ['card_number_invalid'],
  },
  'POST /api/v1/charges': {
    operationId: 'createCharge',
    summary: 'Create a charge',
    description:
      'Charges a buyer by card (a token from tokenize), Pix or boleto, optionally split between sellers of the tenant. A card charge is authorized and, unless `capture_method` is `manual`, captured at once: the answer is `paid`, `refused` or `failed`. A Pix or boleto charge answers `pending` with what the buyer pays with, and becomes `paid` when the payment arrives (webhook `charge.paid`). Send an `Idempotency-Key` to retry safely.',
    tag: 'Charges',
    resource: 'Charge',
    invalid: ['split_invalid'],
    extra: ['409', '502'],
  },
  'GET /api/v1/charges': {
    operationId: 'listCharges',
    summary: 'List charges',
    description: `The charges the key may read (its seller's, for a seller-scoped key), narrowed by \`status\`, \`payment_method\` and the creation instant, from \`created_from\` (included) to \`created_to\` (excluded). ${PAGED} Items carry no split: retrieve the charge for it.`,
    tag: 'Charges',
    resource: 'ChargeList',
  },
  'GET /api/v1/charges/:id': {
    operationId: 'retrieveCharge',
    summary: 'Retrieve a charge',
    description:
      'The charge as it is now, with its refunds and its split. A charge of another tenant, or of the other environment, is not found.',
    tag: 'Charges',
    resource: 'Charge',
  },
  'GET /api/v1/charges/:id/refunds': {
    operationId: 'listChargeRefunds',
    summary: 'List a charge’s refunds',
    description: `Every refund of the charge, whoever made it, with its status: \`succeeded\`, \`failed\`, or \`processing\` while the acquirer's answer is unknown. Needs \`charges:read\`, like the charge. ${PAGED}`,
    tag: 'Charges',
    resource: 'RefundList',
  },
  'GET /api/v1/charges/:id/events': {
    operationId: 'listChargeEvents',
    summary: 'List a charge’s events',
    description: `The history of the charge: each change of the charge, of its refunds and of its chargebacks, as the event the change announced — its \`id\` is the \`id\` of the webhook event sent for it, its \`type\` the webhook's kind, \`charge_status\` the charge's status right after. Charges made before the history was kept list only later changes. Needs \`charges:read\`. ${PAGED}`,
    tag: 'Charges',
    resource: 'ChargeEventList',
  },
  'POST /api/v1/charges/:id/capture': {
    operationId: 'captureCharge',
    summary: 'Capture a charge',
    description:
      'Captures a card charge created with `capture_method=manual` while its authorization holds: the charge becomes `paid`. Capturing a charge that is not `authorized` answers `charge_not_capturable`.',
    tag: 'Charges',
    resource: 'Charge',
    invalid: ['charge_not_capturable'],
    extra: ['409', '502'],
  },
  'POST /api/v1/charges/:id/refund': {
    operationId: 'refundCharge',
    summary: 'Refund a charge',
    description:
      'Refunds a paid charge in full (no body) or in part (`amount_cents`), as many times as its remaining amount allows. The charge becomes `partially_refunded` or `refunded`; the webhooks `refund.succeeded` and `charge.refunded` or `charge.partially_refunded` follow.',
    tag: 'Charges',
    resource: 'Refund',
    invalid: ['charge_not_refundable', 'refund_amount_exceeds_remaining'],
    extra: ['409', '502'],
  },
  'GET /api/v1/balance': {
    operationId: 'retrieveBalance',
    summary: 'Retrieve the balance',
    description:
      "The seller's balance in cents: `pending` (receivables not yet due), `available` (due, to be paid out), `reserved` (held against chargebacks) and what can be requested now. Needs a seller-scoped key.",
    tag: 'Balance',
    resource: 'Balance',
  },
  'GET /api/v1/balance/history': {
    operationId: 'listBalanceTransactions',
    summary: 'List balance transactions',
    description: `Every entry that moved the seller's balance: sales, fees, anticipations, refunds, chargebacks and payouts. ${PAGED} Needs a seller-scoped key.`,
    tag: 'Balance',
    resource: 'BalanceTransactionList',
  },
  'GET /api/v1/receivables': {
    operationId: 'listReceivables',
    summary: 'List receivables',
    description: `The receivable schedule: one receivable per installment of each paid charge, net of the MDR, due D+N; narrowed by \`status\`, and to one charge's by \`charge_id\`. ${PAGED}`,
    tag: 'Receivables',
    resource: 'ReceivableList',
  },
  'GET /api/v1/receivables/:id': {
    operationId: 'retrieveReceivable',
    summary: 'Retrieve a receivable',
    description:
      'One installment of a charge as the seller will receive it: its amounts, its due date, and the anticipation or settlement that took it.',
    tag: 'Receivables',
    resource: 'Receivable',
  },
  'GET /api/v1/settlements': {
    operationId: 'listSettlements',
    summary: 'List settlements',
    description: `The payouts of available receivables to the sellers' bank accounts. ${PAGED}`,
    tag: 'Settlements',
    resource: 'SettlementList',
  },
  'GET /api/v1/settlements/:id': {
    operationId: 'retrieveSettlement',
    summary: 'Retrieve a settlement',
    description: 'One payout: its amount, its status and the receivables it paid.',
    tag: 'Settlements',
    resource: 'Settlement',
  },
  'GET /api/v1/chargebacks': {
    operationId: 'listChargebacks',
    summary: 'List chargebacks',
    description: `The disputes buyers opened with their card issuers against the tenant's charges. ${PAGED}`,
    tag: 'Chargebacks',
    resource: 'ChargebackList',
  },
  'GET /api/v1/chargebacks/:id': {
    operationId: 'retrieveChargeback',
    summary: 'Retrieve a chargeback',
    description:
      'One dispute: the amount held, the reason code and its outcome (`open`, `won`, `lost`).',
    tag: 'Chargebacks',
    resource: 'Chargeback',
  },
  'POST /api/v1/anticipations/simulate': {
    operationId: 'simulateAnticipation',
    summary: 'Simulate an anticipation',
    description:
      "Prices receiving now the seller's pending card receivables (or those named in `receivable_ids`): the fee of each, the net, and whether the seller's exposure limit and the tenant's treasury allow it. Changes nothing. Needs a seller-scoped key.",
    tag: 'Anticipations',
    resource: 'AnticipationSimulation',
    invalid: ['receivable_not_eligible'],
  },
  'POST /api/v1/anticipations': {
    operationId: 'createAnticipation',
    summary: 'Anticipate receivables',
    description:
      'Executes what the simulation priced, atomically: the receivables become `anticipated`, new available receivables carry their net, and the balance moves from pending to available. Send an `Idempotency-Key` to retry safely. Needs a seller-scoped key.',
    tag: 'Anticipations',
    resource: 'Anticipation',
    invalid: ['receivable_not_eligible', 'anticipation_limit_exceeded', 'treasury_limit_exceeded'],
    extra: ['409'],
  },
  'GET /api/v1/anticipations': {
    operationId: 'listAnticipations',
    summary: 'List anticipations',
    description: `The seller's executed anticipations. ${PAGED} Needs a seller-scoped key.`,
    tag: 'Anticipations',
    resource: 'AnticipationList',
  },
  'GET /api/v1/anticipations/:id': {
    operationId: 'retrieveAnticipation',
    summary: 'Retrieve an anticipation',
    description:
      'One executed anticipation with its items: each receivable anticipated, its days, fee and net. Needs a seller-scoped key.',
    tag: 'Anticipations',
    resource: 'Anticipation',
  },
};

/** The operations the gateway answers itself, without an API key. */
export const GATEWAY_OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'GET /api/v1/health': {
    operationId: 'getHealth',
    summary: 'Check the API',
    description: 'Answers 200 while the gateway is up. Needs no API key.',
    tag: 'Meta',
  },
  'GET /api/v1/openapi.json': {
    operationId: 'getOpenApiDocument',
    summary: 'Get this document',
    description:
      'The OpenAPI 3.1 document of the public API, as committed in docs/openapi.json. Needs no API key.',
    tag: 'Meta',
  },
  'GET /api/v1/asyncapi.json': {
    operationId: 'getAsyncApiDocument',
    summary: 'Get the events document',
    description:
      'The AsyncAPI 3 document of the events on the bus (docs/asyncapi.json). Needs no API key.',
    tag: 'Meta',
  },
};

const words = (kebab: string) => kebab.split('-');
const pascal = (kebab: string) =>
  words(kebab)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

const JOB_PROSE: Record<keyof typeof JOB_OWNERS, string> = {
  'receivables-release': 'Makes the receivables due by `as_of_date` available.',
  'settlement-run': 'Pays out every seller’s available receivables as settlements.',
  'authorization-expiry':
    'Cancels the manual-capture card charges whose authorization has expired.',
  'pix-expiry': 'Cancels the Pix charges that were not paid before they expired.',
  'refund-reconciliation': 'Asks the acquirer for the outcome of refunds still pending with it.',
  'pix-payments':
    'Asks each live tenant’s Pix PSP about its pending Pix charges and pays those the PSP reports paid.',
  'boleto-exchange':
    'Exchanges CNAB 240 files with each live tenant’s bank: sends the slips registered since the last run and pays the charges whose liquidation a return file reports.',
};

const jobOperations = Object.fromEntries(
  Object.entries(JOB_PROSE).map(([name, prose]): [string, OperationDoc] => [
    `POST /admin/v1/jobs/${name}`,
    {
      operationId: `run${pascal(name)}Job`,
      summary: `Run the ${words(name).join(' ')} job`,
      description: `${prose} Runs once for \`as_of_date\` (YYYY-MM-DD, default today); a run that finds nothing to do processes 0. A Kubernetes CronJob runs it in a deployment.`,
      tag: 'Jobs',
      resource: 'JobRun',
    },
  ]),
);

const deadLetterOperations = Object.fromEntries(
  PARKING_SERVICES.flatMap((service): Array<[string, OperationDoc]> => [
    [
      `GET /admin/v1/services/${service}/dead-letters`,
      {
        operationId: `list${pascal(service)}DeadLetters`,
        summary: `List the ${service} service's parked events`,
        description: `The events the ${service} service's consumers could not apply and parked (dead letters), with why. ${PAGED}`,
        tag: 'Dead letters',
      },
    ],
    [
      `POST /admin/v1/services/${service}/dead-letters/:id/replay`,
      {
        operationId: `replay${pascal(service)}DeadLetter`,
        summary: `Replay one of the ${service} service's parked events`,
        description:
          'Applies the parked event again, after the deploy that fixes its cause; an event the consumer still cannot apply answers 409 `event_not_replayable` and stays parked.',
        tag: 'Dead letters',
      },
    ],
    [
      `POST /admin/v1/services/${service}/dead-letters/replay`,
      {
        operationId: `replayAll${pascal(service)}DeadLetters`,
        summary: `Replay all of the ${service} service's parked events`,
        description:
          'Applies every parked event again, oldest first, and answers how many were applied and how many stay parked.',
        tag: 'Dead letters',
      },
    ],
  ]),
);

export const ADMIN_OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'GET /admin/v1/tenants': {
    operationId: 'listTenants',
    summary: 'List tenants',
    description: `Every tenant of the deployment. ${PAGED}`,
    tag: 'Tenants',
    resource: 'TenantList',
  },
  'POST /admin/v1/tenants': {
    operationId: 'createTenant',
    summary: 'Create a tenant',
    description:
      'A white-label integrator: every seller, key, charge and webhook endpoint belongs to one. `treasury_available_cash_cents` bounds what its sellers can anticipate.',
    tag: 'Tenants',
    resource: 'Tenant',
  },
  'PATCH /admin/v1/tenants/:tenant_id': {
    operationId: 'updateTenant',
    summary: 'Update a tenant',
    description: "Changes the tenant's name or its treasury.",
    tag: 'Tenants',
    resource: 'Tenant',
  },
  'POST /admin/v1/tenants/:tenant_id/sellers': {
    operationId: 'createSeller',
    summary: 'Create a seller',
    description:
      'A merchant of the tenant, identified by its CPF or CNPJ. It cannot tokenize or charge until its `kyc_status` is `approved`.',
    tag: 'Sellers',
    resource: 'Seller',
  },
  'GET /admin/v1/tenants/:tenant_id/sellers': {
    operationId: 'listSellers',
    summary: 'List a tenant’s sellers',
    description: `The tenant's sellers with their KYC status; \`kyc_status=pending\` lists those waiting for approval. ${PAGED}`,
    tag: 'Sellers',
    resource: 'SellerList',
  },
  'PATCH /admin/v1/sellers/:seller_id': {
    operationId: 'updateSeller',
    summary: 'Update a seller',
    description: "Changes the seller's KYC status, anticipation limit, pricing or pricing plan.",
    tag: 'Sellers',
    resource: 'Seller',
  },
  'POST /admin/v1/tenants/:tenant_id/pricing-plans': {
    operationId: 'createPricingPlan',
    summary: 'Create a pricing plan',
    description:
      "The MDR by payment method, the anticipation fee and the settlement delay; the tenant's `default` plan applies to sellers without one of their own.",
    tag: 'Pricing plans',
    resource: 'PricingPlan',
  },
  'GET /admin/v1/tenants/:tenant_id/pricing-plans': {
    operationId: 'listPricingPlans',
    summary: 'List a tenant’s pricing plans',
    description: `The tenant's plans with their terms, and which one is the default. ${PAGED}`,
    tag: 'Pricing plans',
    resource: 'PricingPlanList',
  },
  'PATCH /admin/v1/pricing-plans/:plan_id': {
    operationId: 'updatePricingPlan',
    summary: 'Update a pricing plan',
    description: 'Changes a plan; charges made before keep the pricing they were made with.',
    tag: 'Pricing plans',
    resource: 'PricingPlan',
  },
  'POST /admin/v1/api-keys': {
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'A key of the tenant (or of one of its sellers) for `test` or `live`, with the permissions named. The `secret` is in this answer only: it is stored as a hash.',
    tag: 'API keys',
    resource: 'CreatedApiKey',
  },
  'GET /admin/v1/tenants/:tenant_id/api-keys': {
    operationId: 'listApiKeys',
    summary: 'List a tenant’s API keys',
    description: `The tenant's keys, revoked ones included: environment, seller, permissions and status, never the secret or its hash. ${PAGED}`,
    tag: 'API keys',
    resource: 'ApiKeyList',
  },
  'DELETE /admin/v1/api-keys/:key_id': {
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description: 'From now on the key answers 401 `api_key_revoked`.',
    tag: 'API keys',
    resource: 'ApiKey',
  },
  'POST /admin/v1/tenants/:tenant_id/webhook-endpoints': {
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description:
      'Where the tenant’s events are sent (all of them, or those in `events`), signed with the `secret` shown in this answer. Private and loopback addresses are refused unless the deployment allows them.',
    tag: 'Webhooks',
    resource: 'WebhookEndpoint',
  },
  'GET /admin/v1/tenants/:tenant_id/webhook-endpoints': {
    operationId: 'listWebhookEndpoints',
    summary: 'List a tenant’s webhook endpoints',
    description: `Where the tenant's events go, and which of them: never the signing secret, which only the creation and a rotation show. ${PAGED}`,
    tag: 'Webhooks',
    resource: 'WebhookEndpointSummaryList',
  },
  'DELETE /admin/v1/webhook-endpoints/:id': {
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description:
      'No event is sent to it from now on; its past deliveries stay listed. `pgw listen` deletes the endpoint of its session when it ends.',
    tag: 'Webhooks',
  },
  'POST /admin/v1/webhook-endpoints/:id/rotate-secret': {
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate a webhook secret',
    description: 'Signs with a new secret from now on; the answer shows it once.',
    tag: 'Webhooks',
  },
  'GET /admin/v1/webhook-endpoints/:id/deliveries': {
    operationId: 'listWebhookDeliveries',
    summary: 'List webhook deliveries',
    description: `The events sent to one endpoint, with their status and attempts. ${PAGED}`,
    tag: 'Webhooks',
  },
  'GET /admin/v1/webhook-deliveries/:id': {
    operationId: 'retrieveWebhookDelivery',
    summary: 'Retrieve a webhook delivery',
    description: 'One delivery with every attempt: when, the status code or the reason it failed.',
    tag: 'Webhooks',
  },
  'POST /admin/v1/webhook-deliveries/:id/redeliver': {
    operationId: 'redeliverWebhook',
    summary: 'Redeliver a webhook',
    description: 'Sends the same event again, with the same body and a fresh signature.',
    tag: 'Webhooks',
  },
  'POST /admin/v1/simulations/charges/:charge_id/pay': {
    operationId: 'simulatePayment',
    summary: 'Pay a Pix or boleto charge',
    description:
      'Test mode: the buyer pays a pending Pix or boleto charge, as the PSP or the bank would tell; the charge becomes `paid`.',
    tag: 'Simulations',
    resource: 'Charge',
  },
  'POST /admin/v1/simulations/chargebacks': {
    operationId: 'simulateChargeback',
    summary: 'Open a chargeback',
    description:
      'Test mode: the issuer disputes a paid card charge (in full, or `amount_cents` of it); the amount is reserved from the seller’s balance.',
    tag: 'Simulations',
    resource: 'Chargeback',
  },
  'POST /admin/v1/simulations/chargebacks/:cb_id/resolve': {
    operationId: 'resolveChargeback',
    summary: 'Resolve a chargeback',
    description:
      'Test mode: the dispute is `won` (the reserve is released) or `lost` (the amount is debited).',
    tag: 'Simulations',
    resource: 'Chargeback',
  },
  'PUT /admin/v1/tenants/:tenant_id/live-rails': {
    operationId: 'setLiveRails',
    summary: 'Set a tenant’s live rails',
    description:
      'Names the live adapter of each kind of payment (card: `cielo`; Pix: `bcb-pix`; boleto: `cnab240-bb`) and the credentials name the deployment keeps its secrets under (`LIVE_RAIL_<NAME>_…` variables and files; no secret is sent or stored). Credentials the deployment lacks are refused with the variable to set, and a tenant the directory does not hold is 404 `resource_not_found`; nothing is stored then. `null` leaves a kind without a live rail: where `DEPLOYMENT_ENV=production` its live charges are refused, elsewhere they reach the simulator.',
    tag: 'Tenants',
  },
  'GET /admin/v1/tenants/:tenant_id/live-rails': {
    operationId: 'getLiveRails',
    summary: 'Show a tenant’s live rails',
    description:
      'Each rail with its provider, its credentials name, whether the deployment holds them complete, and its non-secret settings with account numbers masked — for Pix, `webhook_client_auth`: which client certificates (pinned fingerprints, issuing CAs) stand for the PSP on our webhook, or none (notifications refused). 404 for a tenant the directory does not hold.',
    tag: 'Tenants',
  },
  'PUT /admin/v1/tenants/:tenant_id/live-rails/pix/webhook': {
    operationId: 'registerPixWebhook',
    summary: 'Register the Pix webhook at the tenant’s PSP',
    description:
      'Tells the PSP of the tenant’s live Pix rail where to send its payment notifications (the API Pix `PUT /webhook/{chave}`): `webhook_url` is our public notification address, `https://<ingress>/provider/v1/pix/notifications` (the PSP appends `/pix`). Done once per Pix account, again when the address changes; the same URL again changes nothing. 404 `resource_not_found` when the tenant has no live Pix rail; 422 `parameter_invalid` when its credentials are incomplete (`pix.credentials`) or the URL is refused, by us (not https) or by the PSP (`webhook_url`); 502 `provider_unavailable` when the PSP cannot answer now. Without a registered webhook, payments are still confirmed by the `pix-payments` job.',
    tag: 'Tenants',
  },
  'POST /admin/v1/simulations/provider': {
    operationId: 'setProviderMode',
    summary: 'Set the acquirer simulator’s mode',
    description:
      'Test mode: the simulated acquirer answers `normal`ly, as `unavailable` (a 502 to card charges) or with a `timeout`, until told otherwise.',
    tag: 'Simulations',
  },
  ...jobOperations,
  ...deadLetterOperations,
};
