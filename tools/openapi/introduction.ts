// The documents' introductions (info.description, CommonMark): what the reference page opens with. The
// test cards are a table in code so that the capture (examples.ts) charges each one and throws when the
// simulator answers otherwise than this page says.

export interface TestCard {
  number: string;
  brand: string;
  /** The charge's status and, when refused or failed, its refused_reason and acquirer_return_code. */
  status: 'paid' | 'refused' | 'failed';
  refusedReason?: string;
  returnCode?: string;
}

/** contract.md §6, and the simulator's card whose refunds fail. */
export const TEST_CARDS: readonly TestCard[] = [
  { number: '4111 1111 1111 1111', brand: 'visa', status: 'paid' },
  { number: '5555 5555 5555 4444', brand: 'mastercard', status: 'paid' },
  { number: '3782 822463 10005', brand: 'amex', status: 'paid' },
  {
    number: '4000 0000 0000 0002',
    brand: 'visa',
    status: 'refused',
    refusedReason: 'card_declined',
    returnCode: '05',
  },
  {
    number: '4000 0000 0000 9995',
    brand: 'visa',
    status: 'refused',
    refusedReason: 'insufficient_funds',
    returnCode: '51',
  },
  {
    number: '4000 0000 0000 0069',
    brand: 'visa',
    status: 'refused',
    refusedReason: 'expired_card',
    returnCode: '54',
  },
  {
    number: '4000 0000 0000 0119',
    brand: 'visa',
    status: 'failed',
    refusedReason: 'processing_error',
  },
];

const outcome = (card: TestCard) =>
  card.status === 'paid'
    ? 'approved: `paid`'
    : `\`${card.status}\`, \`refused_reason\` \`${card.refusedReason}\`${card.returnCode ? `, \`acquirer_return_code\` \`${card.returnCode}\`` : ''}`;

const TEST_CARD_TABLE = [
  '| number | brand | outcome |',
  '|---|---|---|',
  ...TEST_CARDS.map((c) => `| \`${c.number}\` | ${c.brand} | ${outcome(c)} |`),
].join('\n');

export const PUBLIC_INTRODUCTION = `The API of a payment gateway for white-label integrators in Brazil: tokenize cards, charge by card, Pix or boleto (with splits between sellers), refund, follow the receivable schedule, the balance and the payouts, and anticipate receivables.

## Authentication
Send an API key as a bearer token: \`Authorization: Bearer sk_test_…\`. A \`sk_test_\` key works on test data only and a \`sk_live_\` key on live data only; an object of the other environment, or of another tenant, is \`404\`. Each key holds permissions (\`charges:create\`, \`balance:read\`, …: each operation names the one it needs in \`x-permission\`), and may be scoped to one seller; operations marked \`x-seller-scope\` need such a key.

## Idempotency
\`POST /charges\`, capture, refund and \`POST /anticipations\` take an \`Idempotency-Key\` header (1 to 255 characters). Retrying with the same key and the same body replays the first answer with \`Idempotent-Replayed: true\`; the same key with another body is \`409 idempotency_key_reused\`, and while the first request is still running \`409 idempotency_key_in_use\`. Keys are kept 24 hours. Retry network errors, \`409 idempotency_key_in_use\` and \`503\` with the same key, after \`Retry-After\` seconds when the answer has it.

## Errors
Every error answers \`{ "error": { "type", "code", "message", "param" }, "request_id" }\`; \`type\` follows the HTTP status and \`code\` says what happened (each operation lists the codes it can answer). Quote \`request_id\` (also in the \`X-Request-Id\` header) when asking for help.

## Money and pages
Amounts are integer cents of BRL (\`amount\`, \`amount_cents\`). Lists answer \`{ "object": "list", "data": [...], "page", "limit", "total", "total_pages" }\` and take \`page\` (from 1) and \`limit\` (1 to 100, default 50).

## Test cards
With a test key, the acquirer simulator decides by card number. Any other Luhn-valid number is approved; a Luhn-invalid one is \`422 card_number_invalid\` at tokenize. Any expiry in the future and any security code of 3 or 4 digits will do.

${TEST_CARD_TABLE}

A Pix or boleto charge stays \`pending\` until the buyer pays; in test mode the operator API pays it (\`POST /admin/v1/simulations/charges/{charge_id}/pay\`, see the operator document at /admin/v1 in docs/openapi-admin.json).

## Webhooks
Register an endpoint (operator API) and each event of the tenant is POSTed to it as \`{ "id": "evt_…", "object": "event", "type", "created_at", "livemode", "data": { "object": <the resource> }, "request_id" }\` (the events are listed under Webhooks). Each delivery is signed:

\`X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>\`

To verify one: take the raw body as received, before parsing it; compute HMAC-SHA256 with the endpoint's \`whsec_…\` secret over \`t\`, a dot and the raw body; compare it with \`v1\` in constant time; refuse a \`t\` more than five minutes old (a replay). In Node:

\`\`\`js
const { createHmac, timingSafeEqual } = require('node:crypto');
function verify(rawBody, header, secret, toleranceSeconds = 300) {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=')));
  const expected = createHmac('sha256', secret).update(\`\${parts.t}.\${rawBody}\`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  const fresh = Math.abs(Date.now() / 1000 - Number(parts.t)) <= toleranceSeconds;
  return fresh && given.length === expected.length && timingSafeEqual(given, expected);
}
\`\`\`

Answer any 2xx within 10 seconds; anything else is retried with exponential back-off for at least 24 hours. Deliveries can repeat: deduplicate by the event's \`id\`.

Generated by tools/openapi/generate.ts from the route schemas of the services; do not edit by hand.`;

export const ADMIN_INTRODUCTION = `The operator API: not for integrators. It provisions tenants, sellers, pricing plans, API keys and webhook endpoints, and in test mode drives time (the jobs' \`as_of_date\`) and the simulated providers. Authenticate with the deployment's admin token as a bearer token (\`ADMIN_TOKEN\`); a public \`sk_\` key is never accepted here, nor the admin token on \`/api/v1\`.

Errors answer the body of the public API (\`{ "error": { "type", "code", "message", "param" }, "request_id" }\`); a wrong or missing admin token is \`401 admin_token_invalid\`.

Generated by tools/openapi/generate.ts from the route schemas of the gateway and the services; do not edit by hand.`;
