// The shape of the Prometheus Operator's ServiceMonitor and PrometheusRule (monitoring.coreos.com/v1),
// which kubernetes-models does not model: the fields of the Operator's CRDs (v0.7x) as JSON schemas, for
// the fields these manifests use and their siblings, closed to anything else. A cluster's API server
// prunes an unknown field of a custom resource without a word (or refuses it under strict field
// validation), so a typo here would silently lose a setting; validate.ts checks every rendered object of
// this group against these, and tools/observability runs promtool on the rules themselves.
import Ajv from 'ajv';

/** The Operator's duration: Prometheus's without fractions (`30s`, `1h30m`, `0`). */
const DURATION = {
  type: 'string',
  pattern:
    '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$',
};
const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } };
const LABEL_SELECTOR = {
  type: 'object',
  additionalProperties: false,
  properties: {
    matchLabels: STRING_MAP,
    matchExpressions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'operator'],
        properties: {
          key: { type: 'string' },
          operator: { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
          values: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
};
const METADATA = {
  type: 'object',
  required: ['name'],
  properties: {
    name: {
      type: 'string',
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
      maxLength: 253,
    },
    namespace: { type: 'string' },
    labels: STRING_MAP,
    annotations: STRING_MAP,
  },
};
const RELABELINGS = { type: 'array', items: { type: 'object' } };

const SERVICE_MONITOR = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'monitoring.coreos.com/v1' },
    kind: { const: 'ServiceMonitor' },
    metadata: METADATA,
    spec: {
      type: 'object',
      additionalProperties: false,
      required: ['selector'],
      properties: {
        selector: LABEL_SELECTOR,
        namespaceSelector: {
          type: 'object',
          additionalProperties: false,
          properties: {
            any: { type: 'boolean' },
            matchNames: { type: 'array', items: { type: 'string' } },
          },
        },
        jobLabel: { type: 'string' },
        targetLabels: { type: 'array', items: { type: 'string' } },
        podTargetLabels: { type: 'array', items: { type: 'string' } },
        sampleLimit: { type: 'integer', minimum: 0 },
        targetLimit: { type: 'integer', minimum: 0 },
        labelLimit: { type: 'integer', minimum: 0 },
        attachMetadata: { type: 'object' },
        scrapeProtocols: { type: 'array', items: { type: 'string' } },
        endpoints: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            properties: {
              port: { type: 'string' },
              targetPort: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
              path: { type: 'string' },
              scheme: { enum: ['http', 'https', 'HTTP', 'HTTPS'] },
              params: {
                type: 'object',
                additionalProperties: { type: 'array', items: { type: 'string' } },
              },
              interval: DURATION,
              scrapeTimeout: DURATION,
              honorLabels: { type: 'boolean' },
              honorTimestamps: { type: 'boolean' },
              trackTimestampsStaleness: { type: 'boolean' },
              followRedirects: { type: 'boolean' },
              enableHttp2: { type: 'boolean' },
              filterRunning: { type: 'boolean' },
              proxyUrl: { type: 'string' },
              tlsConfig: { type: 'object' },
              authorization: { type: 'object' },
              basicAuth: { type: 'object' },
              oauth2: { type: 'object' },
              bearerTokenSecret: { type: 'object' },
              metricRelabelings: RELABELINGS,
              relabelings: RELABELINGS,
            },
          },
        },
      },
    },
  },
};

const RULE = {
  type: 'object',
  additionalProperties: false,
  required: ['expr'],
  oneOf: [{ required: ['record'] }, { required: ['alert'] }],
  properties: {
    record: { type: 'string', minLength: 1 },
    alert: { type: 'string', minLength: 1 },
    expr: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'integer' }] },
    for: DURATION,
    keep_firing_for: DURATION,
    labels: STRING_MAP,
    annotations: STRING_MAP,
  },
};

const PROMETHEUS_RULE = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'monitoring.coreos.com/v1' },
    kind: { const: 'PrometheusRule' },
    metadata: METADATA,
    spec: {
      type: 'object',
      additionalProperties: false,
      properties: {
        groups: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name'],
            properties: {
              name: { type: 'string', minLength: 1 },
              interval: DURATION,
              query_offset: DURATION,
              limit: { type: 'integer' },
              partial_response_strategy: { type: 'string' },
              labels: STRING_MAP,
              rules: { type: 'array', items: RULE },
            },
          },
        },
      },
    },
  },
};

const ajv = new Ajv({ allErrors: true, strict: false });
const validators: Record<string, ReturnType<typeof ajv.compile>> = {
  ServiceMonitor: ajv.compile(SERVICE_MONITOR),
  PrometheusRule: ajv.compile(PROMETHEUS_RULE),
};

/** The kinds of monitoring.coreos.com/v1 these schemas know. */
export const MONITORING_KINDS = Object.keys(validators);

/** The shape errors of a monitoring.coreos.com object; null when its kind has no schema here. */
export function monitoringErrors(object: { kind?: string }): string[] | null {
  const validate = validators[object.kind ?? ''];
  if (validate === undefined) return null;
  const ok = validate(object);
  return ok
    ? []
    : (validate.errors ?? []).map((e) =>
        `${e.instancePath} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params['additionalProperty'])})` : ''}`.trim(),
      );
}
