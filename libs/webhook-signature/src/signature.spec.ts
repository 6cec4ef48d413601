import { createHmac } from 'node:crypto';
import { computeSignature, parseSignatureHeader, signWebhook, verifyWebhook } from './signature';

const SECRET = 'whsec_0123456789abcdefghijklmnopqrstuv';
const OLD_SECRET = 'whsec_old_0123456789abcdefghijklmnop';
const BODY =
  '{"id":"evt_1","object":"event","type":"charge.paid","data":{"object":{"id":"ch_1","amount":1000}}}';
const T = 1_772_000_000;

describe('signWebhook', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>, computed here independently', () => {
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(signWebhook(SECRET, BODY, T)).toBe(`t=${T},v1=${expected}`);
    expect(computeSignature(SECRET, Buffer.from(BODY), T)).toBe(expected);
  });

  it('carries one v1 per secret, in the order given, during a rotation', () => {
    const header = signWebhook([SECRET, OLD_SECRET], BODY, T);
    expect(header).toBe(
      `t=${T},v1=${computeSignature(SECRET, BODY, T)},v1=${computeSignature(OLD_SECRET, BODY, T)}`,
    );
  });

  it('refuses no secret and a timestamp that is not whole seconds', () => {
    expect(() => signWebhook([], BODY, T)).toThrow();
    expect(() => signWebhook(SECRET, BODY, 1.5)).toThrow();
  });
});

describe('verifyWebhook', () => {
  const header = signWebhook(SECRET, BODY, T);

  it('accepts the signature of the raw body within the tolerance, either way', () => {
    expect(verifyWebhook({ rawBody: BODY, header, secrets: [SECRET], nowSeconds: T })).toEqual({
      ok: true,
      timestampSeconds: T,
    });
    expect(
      verifyWebhook({ rawBody: Buffer.from(BODY), header, secrets: [SECRET], nowSeconds: T + 300 })
        .ok,
    ).toBe(true);
    expect(
      verifyWebhook({ rawBody: BODY, header, secrets: [SECRET], nowSeconds: T - 300 }).ok,
    ).toBe(true);
  });

  it('refuses a tampered body, even a change of one character or of whitespace', () => {
    expect(
      verifyWebhook({
        rawBody: BODY.replace('1000', '9000'),
        header,
        secrets: [SECRET],
        nowSeconds: T,
      }),
    ).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(
      verifyWebhook({
        rawBody: JSON.stringify(JSON.parse(BODY), null, 1),
        header,
        secrets: [SECRET],
        nowSeconds: T,
      }).ok,
    ).toBe(false);
  });

  it('refuses a timestamp more than 5 minutes old (a replay) or ahead', () => {
    expect(
      verifyWebhook({ rawBody: BODY, header, secrets: [SECRET], nowSeconds: T + 301 }),
    ).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
    expect(
      verifyWebhook({ rawBody: BODY, header, secrets: [SECRET], nowSeconds: T - 301 }).ok,
    ).toBe(false);
    expect(
      verifyWebhook({
        rawBody: BODY,
        header,
        secrets: [SECRET],
        nowSeconds: T + 60,
        toleranceSeconds: 30,
      }).ok,
    ).toBe(false);
  });

  it('refuses a fresh t pasted on an old signature: the MAC covers t', () => {
    const v1 = header.split(',')[1];
    expect(
      verifyWebhook({
        rawBody: BODY,
        header: `t=${T + 1000},${v1}`,
        secrets: [SECRET],
        nowSeconds: T + 1000,
      }).ok,
    ).toBe(false);
  });

  it('refuses another secret, and accepts any v1 matching any secret held (rotation, both sides)', () => {
    expect(verifyWebhook({ rawBody: BODY, header, secrets: [OLD_SECRET], nowSeconds: T }).ok).toBe(
      false,
    );
    const both = signWebhook([SECRET, OLD_SECRET], BODY, T);
    expect(
      verifyWebhook({ rawBody: BODY, header: both, secrets: [OLD_SECRET], nowSeconds: T }).ok,
    ).toBe(true);
    expect(
      verifyWebhook({ rawBody: BODY, header: both, secrets: [SECRET], nowSeconds: T }).ok,
    ).toBe(true);
    expect(
      verifyWebhook({ rawBody: BODY, header, secrets: ['whsec_other', SECRET], nowSeconds: T }).ok,
    ).toBe(true);
    expect(verifyWebhook({ rawBody: BODY, header, secrets: [], nowSeconds: T }).ok).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['without t', `v1=${'a'.repeat(64)}`],
    ['without v1', `t=${T}`],
    ['with a short v1', `t=${T},v1=abc`],
    ['with a non-numeric t', `t=12a,v1=${'a'.repeat(64)}`],
    ['with two t', `t=${T},t=${T},v1=${'a'.repeat(64)}`],
    ['as an array (repeated header)', [header, header]],
    ['too long', `t=${T},${'x=y,'.repeat(2000)}v1=${'a'.repeat(64)}`],
  ])('answers header_missing_or_malformed for a header %s', (_name, bad) => {
    expect(verifyWebhook({ rawBody: BODY, header: bad, secrets: [SECRET], nowSeconds: T })).toEqual(
      { ok: false, reason: 'header_missing_or_malformed' },
    );
  });

  it('skips unknown schemes (a future v2) and spaces around parts', () => {
    const v1 = computeSignature(SECRET, BODY, T);
    expect(parseSignatureHeader(`t=${T}, v2=zzz, v1=${v1}`)).toEqual({
      timestampSeconds: T,
      signatures: [v1],
    });
    expect(
      verifyWebhook({
        rawBody: BODY,
        header: `t=${T}, v2=zzz, v1=${v1}`,
        secrets: [SECRET],
        nowSeconds: T,
      }).ok,
    ).toBe(true);
  });
});
