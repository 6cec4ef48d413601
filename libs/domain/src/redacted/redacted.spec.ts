import { inspect } from 'node:util';
import { Redacted } from './redacted';

describe('Redacted', () => {
  it('prints [redacted] through JSON, inspect and string conversion, and gives the value to expose() only', () => {
    const key = new Redacted('sk-merchant-0123456789');
    const printed = [JSON.stringify({ key }), inspect({ key }), `${key}`, String(key)];
    expect(printed).toEqual([
      '{"key":"[redacted]"}',
      '{ key: Redacted([redacted]) }',
      '[redacted]',
      '[redacted]',
    ]);
    expect(key.expose()).toBe('sk-merchant-0123456789');
  });
});
