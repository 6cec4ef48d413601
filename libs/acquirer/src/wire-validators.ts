import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';

/**
 * The validator of each wire schema, compiled by `ajv` the first time it is asked for: compiling is slow,
 * and an adapter checks the same few schemas on every answer.
 */
export function validatorCache(ajv: Ajv): (schema: TSchema) => ValidateFunction {
  const validators = new Map<TSchema, ValidateFunction>();
  return (schema) => {
    let fn = validators.get(schema);
    if (fn === undefined) {
      fn = ajv.compile(schema);
      validators.set(schema, fn);
    }
    return fn;
  };
}
