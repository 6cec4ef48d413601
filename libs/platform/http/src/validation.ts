import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ApiError } from './errors';

// Bodies are validated strictly: no type coercion (an amount sent as "100" is invalid, not 100), and
// unknown fields are reported rather than silently removed. Query strings and path params arrive as
// text, so there ajv coerces them to the declared types (integers only from decimal digits, below).
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: false,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);

type Validate = ReturnType<FastifySchemaCompiler<unknown>> & { errors?: ErrorObject[] | null };

// ajv coerces a string to a number when `+string` is one, so `0x10` would be 16, `1e3` 1000, ` 5` and
// `+5` 5. An integer in a query string or a path is written in decimal digits (an optional minus sign
// first) and nothing else; the schema's own bounds are then ajv's to check.
const DECIMAL_INTEGER = /^-?[0-9]+$/;

function integerProperties(schema: unknown): string[] {
  const properties =
    (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.keys(properties).filter((name) => {
    const type = properties[name]?.type;
    return type === 'integer' || (Array.isArray(type) && type.includes('integer'));
  });
}

function notDecimal(value: unknown): boolean {
  const values: unknown[] = Array.isArray(value) ? value : [value];
  return values.some((v) => typeof v === 'string' && !DECIMAL_INTEGER.test(v));
}

/** Wraps a coercing validator so that its integer properties accept only decimal digits. */
function decimalIntegersOnly(validate: Validate, integers: string[]): Validate {
  const checked: Validate = (data: unknown) => {
    const given =
      typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
    const wrong = integers.find((name) => Object.hasOwn(given, name) && notDecimal(given[name]));
    if (wrong !== undefined) {
      checked.errors = [
        {
          keyword: 'decimal',
          instancePath: `/${wrong}`,
          schemaPath: `#/properties/${wrong}`,
          params: {},
          message: 'must be an integer written in decimal digits',
        },
      ];
      return false;
    }
    const ok = validate(data);
    checked.errors = validate.errors ?? null;
    return ok;
  };
  return checked;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return strictAjv.compile(schema as object) as Validate;
  const validate = coercingAjv.compile(schema as object) as Validate;
  const integers =
    httpPart === 'querystring' || httpPart === 'params' ? integerProperties(schema) : [];
  return integers.length === 0 ? validate : decimalIntegersOnly(validate, integers);
};

// `/buyer/address/zip_code` → `buyer.address.zip_code`; `/split/1/amount_cents` → `split.1.amount_cents`.
function dotted(instancePath: string, child?: string): string | null {
  const parts = instancePath
    .split('/')
    .filter((p) => p !== '')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.length === 0 ? null : parts.join('.');
}

function describe(error: ErrorObject, param: string | null): string {
  const name = param ?? 'body';
  switch (error.keyword) {
    case 'type':
      return `${name}: must be of type ${String(error.params.type)}`;
    case 'enum':
      return `${name}: must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `${name}: must be ${JSON.stringify(error.params.allowedValue)}`;
    default:
      return `${name}: ${error.message ?? 'is invalid'}`;
  }
}

/** Turns the first ajv error of a request part into the contract's 422. */
export function validationToApiError(errors: ErrorObject[]): ApiError {
  const error = errors[0];
  if (error === undefined) return new ApiError('parameter_invalid', 'The request is invalid.');
  if (error.keyword === 'required') {
    const param = dotted(error.instancePath, String(error.params.missingProperty));
    return new ApiError('parameter_missing', `${param}: is required`, param);
  }
  if (error.keyword === 'additionalProperties') {
    const param = dotted(error.instancePath, String(error.params.additionalProperty));
    return new ApiError('parameter_unknown', `${param}: is not a known parameter`, param);
  }
  const param = dotted(error.instancePath);
  return new ApiError('parameter_invalid', describe(error, param), param);
}
