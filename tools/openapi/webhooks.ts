import { WEBHOOK_KINDS } from '@pgw/contracts';
import type { Components, JsonSchema } from './components';

// Contract §7's events as OpenAPI 3.1 `webhooks`: one entry per kind the webhooks service sends (the
// contracts' WEBHOOK_KINDS), each a POST to the integrator's endpoint whose body carries the resource the
// public API answers, signed in X-Signature.

/** The resource each kind's data.object is, by the kind's first word. */
const RESOURCE_OF: Readonly<Record<string, string>> = {
  charge: 'Charge',
  refund: 'Refund',
  chargeback: 'Chargeback',
  anticipation: 'Anticipation',
  settlement: 'Settlement',
};

export const SIGNATURE_HEADER = {
  name: 'X-Signature',
  in: 'header',
  required: true,
  description:
    '`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, the secret being the endpoint\'s `whsec_…`. Compute the HMAC over the raw bytes received (before any JSON parsing), compare in constant time, and refuse a `t` older than a few minutes.',
  schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}$' },
};

/** The envelope of every event; each webhook narrows `type` and `data.object`. */
export const EVENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'type', 'created_at', 'livemode', 'data', 'request_id'],
  properties: {
    id: {
      type: 'string',
      pattern: '^evt_',
      description: 'Deduplicate by this id: a delivery can be repeated.',
    },
    object: { const: 'event' },
    type: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    livemode: { type: 'boolean' },
    data: { type: 'object', required: ['object'], properties: { object: { type: 'object' } } },
    request_id: {
      anyOf: [{ type: 'string' }, { type: 'null' }],
      description: 'The API request that caused the event, when one did.',
    },
  },
};

const camel = (kind: string) => kind.replace(/[._]([a-z])/g, (_m, c: string) => c.toUpperCase());

export function webhooksOf(
  components: Components,
  examples: Readonly<Record<string, unknown>>,
): Record<string, Record<string, JsonSchema>> {
  const webhooks: Record<string, Record<string, JsonSchema>> = {};
  for (const kind of WEBHOOK_KINDS) {
    const resource = RESOURCE_OF[kind.split('.')[0]!];
    if (resource === undefined || components.schemas[resource] === undefined)
      throw new Error(`webhook ${kind}: no component for its resource`);
    const example = examples[kind];
    webhooks[kind] = {
      post: {
        operationId: `${camel(kind)}Event`,
        summary: `${kind}`,
        description: `Sent to each endpoint of the tenant that listens to \`${kind}\` (or to every event), with the ${resource} as it is now in \`data.object\`. Answer 2xx within 10 s; anything else is retried with exponential back-off for at least 24 hours.`,
        tags: ['Webhooks'],
        security: [],
        parameters: [{ $ref: '#/components/parameters/Signature' }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                allOf: [
                  { $ref: '#/components/schemas/Event' },
                  {
                    type: 'object',
                    properties: {
                      type: { const: kind },
                      data: {
                        type: 'object',
                        properties: { object: components.resource(resource) },
                      },
                    },
                  },
                ],
              },
              ...(example !== undefined ? { example } : {}),
            },
          },
        },
        responses: { '200': { description: 'Received: any 2xx status acknowledges the event.' } },
      },
    };
  }
  return webhooks;
}
