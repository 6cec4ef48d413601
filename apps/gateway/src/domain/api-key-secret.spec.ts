import { newApiKeySecret, parseAuthorization, sha256Hex } from './api-key-secret';

describe('API key secrets', () => {
  it('makes sk_test_/sk_live_ secrets of 32 base62 characters, all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i += 1) {
      const secret = newApiKeySecret(i % 2 === 0 ? 'test' : 'live');
      expect(secret).toMatch(
        i % 2 === 0 ? /^sk_test_[A-Za-z0-9]{32}$/ : /^sk_live_[A-Za-z0-9]{32}$/,
      );
      seen.add(secret);
    }
    expect(seen.size).toBe(1000);
  });

  it('hashes with SHA-256 to 64 hex characters', () => {
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('reads only the exact shape Bearer sk_(test|live)_<32 base62>, and says which environment', () => {
    const test = newApiKeySecret('test');
    const live = newApiKeySecret('live');
    expect(parseAuthorization(`Bearer ${test}`)).toEqual({
      kind: 'api_key',
      secret: test,
      livemode: false,
    });
    expect(parseAuthorization(`Bearer ${live}`)).toEqual({
      kind: 'api_key',
      secret: live,
      livemode: true,
    });
    expect(parseAuthorization(undefined)).toEqual({ kind: 'missing' });
    const body = test.slice('sk_test_'.length);
    for (const bad of [
      '',
      ' ',
      'Bearer',
      'Bearer ',
      `bearer ${test}`,
      `BEARER ${test}`,
      `Bearer  ${test}`,
      ` Bearer ${test}`,
      `Bearer ${test} `,
      `Bearer\t${test}`,
      `Basic ${Buffer.from(`${test}:`).toString('base64')}`,
      test,
      `Bearer sk_prod_${body}`,
      `Bearer sk_test_${body.slice(1)}`,
      `Bearer sk_test_${body}x`,
      `Bearer sk_test_${body.slice(1)}é`,
      `Bearer sk_test_${body.slice(2)}€`,
      `Bearer ${test},Bearer ${live}`,
      `Bearer ${'A'.repeat(100_000)}`,
    ]) {
      expect([bad.slice(0, 40), parseAuthorization(bad)]).toEqual([
        bad.slice(0, 40),
        { kind: 'malformed' },
      ]);
    }
    expect(parseAuthorization([`Bearer ${test}`, `Bearer ${live}`])).toEqual({ kind: 'malformed' });
  });
});
