import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ApiError } from './errors';

// Bodies are validated strictly: no type coercion (an amount sent as "100" is invalid, not 100), and
// unknown fields are reported rather than silently removed. Query strings and path params arrive as
// text, so there ajv coerces them to the declared types.
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

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

// `/buyer/address/zip_code` → `buyer.address.zip_code`; `/split/1/amount_cents` → `split.1.amount_cents`.
function dotted(instancePath: string, child?: string): string | null {
  const parts = instancePath.split('/').filter((p) => p !== '').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
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
