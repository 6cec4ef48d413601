import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from './config';

// An app's configuration: one TypeBox object whose properties are the environment variables it reads,
// with their defaults and bounds, read once at boot. Every bad variable is named in one error, so that a
// deploy with three mistakes fails once, not three times.

type EnvSchema = TSchema & {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  /** What the variable must be, in words: the message when its value is refused ("X must be <description>"). */
  description?: string;
  anyOf?: Array<{ const?: unknown }>;
};

const TRUE = new Set(['1', 'true']);
const FALSE = new Set(['0', 'false']);

/** The variable's text as the property's type; a string naming what is wrong otherwise. */
function convert(name: string, raw: string, schema: EnvSchema): { value: unknown } | string {
  switch (schema.type) {
    case 'integer': {
      // As envInt always took it: what Number() reads as a safe integer.
      const value = Number(raw);
      return Number.isSafeInteger(value) ? { value } : `${name} must be an integer, got ${raw}`;
    }
    case 'number': {
      const value = Number(raw);
      return Number.isFinite(value) ? { value } : `${name} must be a number, got ${raw}`;
    }
    case 'boolean':
      return TRUE.has(raw)
        ? { value: true }
        : FALSE.has(raw)
          ? { value: false }
          : `${name} must be 1 or 0, got ${raw}`;
    default:
      return { value: raw };
  }
}

function bounds(name: string, value: unknown, schema: EnvSchema): string | null {
  // A secret's length is named, never its value.
  if (
    typeof value === 'string' &&
    schema.minLength !== undefined &&
    value.length < schema.minLength
  )
    return `${name} must have at least ${schema.minLength} characters`;
  if (Value.Check(schema, value)) return null;
  const { minimum, maximum } = schema;
  if (typeof value === 'number' && (minimum !== undefined || maximum !== undefined)) {
    if (minimum !== undefined && maximum !== undefined)
      return `${name} must be between ${minimum} and ${maximum}, got ${value}`;
    return minimum !== undefined
      ? `${name} must be at least ${minimum}, got ${value}`
      : `${name} must be at most ${maximum}, got ${value}`;
  }
  if (schema.description !== undefined) return `${name} must be ${schema.description}`;
  const choices = schema.anyOf?.map((choice) => choice.const);
  if (choices !== undefined && choices.every((choice) => typeof choice === 'string'))
    return `${name} must be one of ${choices.join(', ')}`;
  const first = Value.Errors(schema, value).First();
  return `${name}: ${first?.message ?? 'invalid'}`;
}

/**
 * Reads the variables `schema` declares from `env`: an unset or empty variable takes its property's
 * `default`, or stays absent when the property is optional, and is an error otherwise; a set one is read
 * as its property's type (integer, number, boolean as 1/0, string) and held to its bounds. Throws one
 * ConfigError that lists every bad variable.
 */
export function readEnv<S extends TObject>(schema: S, env: NodeJS.ProcessEnv): Static<S> {
  const required = new Set(schema.required ?? []);
  const config: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, property] of Object.entries(schema.properties) as Array<[string, EnvSchema]>) {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      if ('default' in property) config[name] = property.default;
      else if (required.has(name)) problems.push(`${name} is required`);
      continue;
    }
    const converted = convert(name, raw, property);
    if (typeof converted === 'string') {
      problems.push(converted);
      continue;
    }
    const problem = bounds(name, converted.value, property);
    if (problem === null) config[name] = converted.value;
    else problems.push(problem);
  }
  if (problems.length > 0) throw new ConfigError(problems.join('; '));
  return config as Static<S>;
}
