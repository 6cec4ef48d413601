import { Type } from '@sinclair/typebox';
import { ConfigError } from './config';
import { readEnv } from './env';

const Schema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65_535, default: 8080 }),
  BATCH: Type.Integer({ minimum: 1, default: 500 }),
  RATIO: Type.Number({ default: 0.5 }),
  VERBOSE: Type.Boolean({ default: false }),
  NAME: Type.String({ default: 'svc' }),
  DATABASE_URL: Type.String({ minLength: 1 }),
  OPTIONAL: Type.Optional(Type.Integer()),
});

describe('readEnv', () => {
  it('takes each default for an unset or empty variable, and leaves an optional one out', () => {
    expect(readEnv(Schema, { DATABASE_URL: 'postgres://x', BATCH: '' })).toEqual({
      PORT: 8080,
      BATCH: 500,
      RATIO: 0.5,
      VERBOSE: false,
      NAME: 'svc',
      DATABASE_URL: 'postgres://x',
    });
  });

  it('reads each variable as its type', () => {
    expect(
      readEnv(Schema, {
        DATABASE_URL: 'u',
        PORT: '0',
        BATCH: '1000',
        RATIO: '0.25',
        VERBOSE: '1',
        NAME: 'gw',
        OPTIONAL: '-3',
      }),
    ).toEqual({
      PORT: 0,
      BATCH: 1000,
      RATIO: 0.25,
      VERBOSE: true,
      NAME: 'gw',
      DATABASE_URL: 'u',
      OPTIONAL: -3,
    });
    expect(readEnv(Schema, { DATABASE_URL: 'u', VERBOSE: 'false' }).VERBOSE).toBe(false);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      readEnv(Schema, {
        PORT: '70000',
        BATCH: 'soon',
        RATIO: 'half',
        VERBOSE: 'yes',
        OPTIONAL: '1.5',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message.split('; ')).toEqual([
      'PORT must be between 0 and 65535, got 70000',
      'BATCH must be an integer, got soon',
      'RATIO must be a number, got half',
      'VERBOSE must be 1 or 0, got yes',
      'DATABASE_URL is required',
      'OPTIONAL must be an integer, got 1.5',
    ]);
  });

  it('holds a variable to its bounds at each end', () => {
    expect(() => readEnv(Schema, { DATABASE_URL: 'u', BATCH: '0' })).toThrow(
      'BATCH must be at least 1, got 0',
    );
    expect(readEnv(Schema, { DATABASE_URL: 'u', PORT: '65535' }).PORT).toBe(65_535);
  });

  it('names a secret too short by its length, never its value', () => {
    const Secret = Type.Object({ ADMIN_TOKEN: Type.String({ minLength: 16 }) });
    expect(() => readEnv(Secret, { ADMIN_TOKEN: 'short-token' })).toThrow(
      'ADMIN_TOKEN must have at least 16 characters',
    );
    try {
      readEnv(Secret, { ADMIN_TOKEN: 'short-token' });
    } catch (error) {
      expect((error as Error).message).not.toContain('short-token');
    }
    expect(readEnv(Secret, { ADMIN_TOKEN: 'x'.repeat(16) }).ADMIN_TOKEN).toBe('x'.repeat(16));
  });

  it('says what a refused text must be: its description, or the choices of a union of literals', () => {
    const Choices = Type.Object({
      ID: Type.String({ pattern: '^[0-9]{3}$', description: 'three digits' }),
      MODE: Type.Optional(Type.Union([Type.Literal('sandbox'), Type.Literal('production')])),
    });
    expect(() => readEnv(Choices, { ID: '12a', MODE: 'live' })).toThrow(
      'ID must be three digits; MODE must be one of sandbox, production',
    );
    expect(readEnv(Choices, { ID: '123', MODE: 'sandbox' })).toEqual({
      ID: '123',
      MODE: 'sandbox',
    });
  });
});
