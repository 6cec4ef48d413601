import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { buildApp } from './build-app';
import { ConfigError } from './config';
import {
  envPrincipalPublicKeys,
  generatePrincipalKeys,
  PRINCIPAL_HEADER,
  principalPrivateKey,
  principalPublicKey,
  requestBinding,
  signPrincipal,
  verifyPrincipal,
  type ApiKeyPrincipal,
} from './principal';
import { apiPrincipal, principalPlugin, sellerPrincipal } from './principal-plugin';
import { TestPrincipals } from './principal-testing';

const KEYS = generatePrincipalKeys();
const now = 1_800_000_000_000;
const principal: ApiKeyPrincipal = {
  kind: 'api_key',
  tenantId: 'ten_a',
  sellerId: null,
  keyId: 'key_a',
  permissions: ['charges:read', 'refunds:create'],
  livemode: false,
  requestId: 'req_abc',
  expiresAtMs: now + 60_000,
};
const GET_CH_1 = requestBinding('GET', '/charges/ch_1');
const signedFor = (method: string, url: string, key: KeyObject = KEYS.privateKey, p = principal) =>
  signPrincipal(p, requestBinding(method, url), key);

describe('signed principal', () => {
  it('round-trips a principal and the request it was issued for, signed with the matching private key', () => {
    // Proves a service reads back exactly what the gateway signed: who, and for which request.
    expect(
      verifyPrincipal(signPrincipal(principal, GET_CH_1, KEYS.privateKey), [KEYS.publicKey], now),
    ).toEqual({ principal, request: { method: 'GET', path: '/charges/ch_1', query: '' } });
  });

  it("carries the client's address under the signature: read back as signed, refused when rewritten or not a string", () => {
    // Proves the address a service records is the one the gateway saw: a client cannot write it.
    const seen = { ...principal, clientIp: '203.0.113.7' };
    const token = signPrincipal(seen, GET_CH_1, KEYS.privateKey);
    expect(verifyPrincipal(token, [KEYS.publicKey], now)?.principal).toEqual(seen);
    const signature = token.split('.')[1];
    const rewritten = Buffer.from(
      JSON.stringify({ ...seen, clientIp: '198.51.100.9', request: GET_CH_1 }),
    ).toString('base64url');
    expect(verifyPrincipal(`${rewritten}.${signature}`, [KEYS.publicKey], now)).toBeNull();
    expect(
      verifyPrincipal(
        signPrincipal(
          { ...principal, clientIp: 7 as unknown as string },
          GET_CH_1,
          KEYS.privateKey,
        ),
        [KEYS.publicKey],
        now,
      ),
    ).toBeNull();
  });

  it('refuses a token signed with another key, tampered, expired or malformed', () => {
    // Proves only the holder of the gateway's private key can mint a principal a service believes.
    const token = signPrincipal(principal, GET_CH_1, KEYS.privateKey);
    expect(
      verifyPrincipal(
        signPrincipal(principal, GET_CH_1, generatePrincipalKeys().privateKey),
        [KEYS.publicKey],
        now,
      ),
    ).toBeNull();
    const [data, signature] = token.split('.');
    const tampered = Buffer.from(
      JSON.stringify({ ...principal, tenantId: 'ten_b', request: GET_CH_1 }),
    ).toString('base64url');
    expect(verifyPrincipal(`${tampered}.${signature}`, [KEYS.publicKey], now)).toBeNull();
    const rebound = Buffer.from(
      JSON.stringify({ ...principal, request: requestBinding('POST', '/charges/ch_1/refund') }),
    ).toString('base64url');
    expect(verifyPrincipal(`${rebound}.${signature}`, [KEYS.publicKey], now)).toBeNull();
    expect(verifyPrincipal(token, [KEYS.publicKey], now + 61_000)).toBeNull();
    for (const bad of [
      '',
      '.',
      'abc',
      `${data}.`,
      `.${signature}`,
      'a.b.c',
      `${data}.${signature}x`,
      undefined,
    ]) {
      expect(verifyPrincipal(bad, [KEYS.publicKey], now)).toBeNull();
    }
  });

  it('canonicalizes the request: percent-encoding and query spelling do not matter, the path and the query do', () => {
    // Proves one request has one binding however its URL is spelled, and two requests never share one.
    expect(requestBinding('get', '/charges/%63h_1')).toEqual(GET_CH_1);
    expect(requestBinding('GET', '/charges/ch_1?a=b%20c&d=1')).toEqual(
      requestBinding('GET', '/charges/ch_1?a=b+c&d=1'),
    );
    expect(requestBinding('GET', '/charges/a%2Fb').path).not.toBe(
      requestBinding('GET', '/charges/a/b').path,
    );
    expect(requestBinding('GET', '/charges/ch_1?limit=1')).not.toEqual(GET_CH_1);
    expect(requestBinding('GET', '/charges/%zz').path).toBe('/charges/%zz');
  });
});

describe('principalPlugin', () => {
  async function service(options: { previousPublicKey?: KeyObject } = {}) {
    const app = buildApp({ name: 'svc', log: { level: 'silent' } });
    await app.register(principalPlugin, {
      publicKey: KEYS.publicKeyPem,
      ...options,
      publicRoutes: ['/health'],
      nowMs: () => now,
    });
    app.get('/health', async () => ({ ok: true }));
    app.get(
      '/charges/:id',
      { schema: { params: Type.Object({ id: Type.String() }) } },
      async (request) => ({ tenant: apiPrincipal(request, 'charges:read').tenantId }),
    );
    app.post('/charges/:id/refund', async (request) => ({
      tenant: apiPrincipal(request, 'refunds:create').tenantId,
    }));
    app.get('/balance', async (request) => ({
      seller: sellerPrincipal(request, 'charges:read').sellerId,
    }));
    app.get(
      '/internal/tokens/:id',
      { config: { principalFrom: ['POST /charges'] } },
      async (request) => ({ tenant: apiPrincipal(request, 'charges:read').tenantId }),
    );
    await app.ready();
    return app;
  }

  it('makes a service refuse requests without a valid principal and check the permission itself', async () => {
    // Proves a request that did not come through the gateway is answered 401 with the contract's body.
    const app = await service();
    expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    const missing = await app.inject({ url: '/charges/ch_1' });
    expect([missing.statusCode, missing.json().error]).toEqual([
      401,
      expect.objectContaining({ type: 'authentication_error', code: 'principal_invalid' }),
    ]);
    const forged = await app.inject({
      url: '/charges/ch_1',
      headers: {
        [PRINCIPAL_HEADER]: signedFor('GET', '/charges/ch_1', generatePrincipalKeys().privateKey),
      },
    });
    expect(forged.statusCode).toBe(401);
    const expired = await app.inject({
      url: '/charges/ch_1',
      headers: {
        [PRINCIPAL_HEADER]: signedFor('GET', '/charges/ch_1', KEYS.privateKey, {
          ...principal,
          expiresAtMs: now - 1,
        }),
      },
    });
    expect(expired.statusCode).toBe(401);

    const ok = await app.inject({
      url: '/charges/ch_1',
      headers: { [PRINCIPAL_HEADER]: signedFor('GET', '/charges/ch_1') },
    });
    expect(ok.json()).toMatchObject({ tenant: 'ten_a' });
    const noPerm = await app.inject({
      url: '/charges/ch_1',
      headers: {
        [PRINCIPAL_HEADER]: signedFor('GET', '/charges/ch_1', KEYS.privateKey, {
          ...principal,
          permissions: [],
        }),
      },
    });
    expect([noPerm.statusCode, noPerm.json().error.code]).toEqual([403, 'permission_denied']);
    const noSeller = await app.inject({
      url: '/balance',
      headers: { [PRINCIPAL_HEADER]: signedFor('GET', '/balance') },
    });
    expect([noSeller.statusCode, noSeller.json().error.code]).toEqual([
      403,
      'seller_scope_required',
    ]);
    await app.close();
  });

  it('refuses (401) a valid principal replayed onto another method, path or query, and accepts another spelling of its own', async () => {
    // Proves a principal captured on one request cannot be spent on another route within its minute.
    const app = await service();
    const token = signedFor('GET', '/charges/ch_1');
    const replays = [
      { method: 'POST' as const, url: '/charges/ch_1/refund' },
      { method: 'GET' as const, url: '/charges/ch_2' },
      { method: 'GET' as const, url: '/charges/ch_1?expand=buyer' },
      { method: 'GET' as const, url: '/internal/tokens/tok_1' },
    ];
    for (const replay of replays) {
      const res = await app.inject({ ...replay, headers: { [PRINCIPAL_HEADER]: token } });
      expect([replay.url, res.statusCode, res.json().error]).toEqual([
        replay.url,
        401,
        expect.objectContaining({ type: 'authentication_error', code: 'principal_invalid' }),
      ]);
    }
    expect(
      (await app.inject({ url: '/charges/%63h_1', headers: { [PRINCIPAL_HEADER]: token } }))
        .statusCode,
    ).toBe(200);
    await app.close();
  });

  it('accepts on an internal route the principal of the public routes it names (principalFrom), and no other', async () => {
    // Proves charges can ask the vault with the integrator's principal of POST /charges, and that only that delegation is open.
    const app = await service();
    const asked = (token: string) =>
      app.inject({ url: '/internal/tokens/tok_1', headers: { [PRINCIPAL_HEADER]: token } });
    expect((await asked(signedFor('POST', '/charges'))).statusCode).toBe(200);
    expect((await asked(signedFor('GET', '/internal/tokens/tok_1'))).statusCode).toBe(200);
    expect((await asked(signedFor('GET', '/charges'))).statusCode).toBe(401);
    expect((await asked(signedFor('POST', '/charges/ch_1/refund'))).statusCode).toBe(401);
    await app.close();
  });

  it('accepts a principal signed with the previous key pair only while PRINCIPAL_PUBLIC_KEY_PREVIOUS is set', async () => {
    // Proves the rotation window: the previous key is believed when configured, and refused once it is dropped.
    const previous = generatePrincipalKeys();
    const rotating = await service({ previousPublicKey: previous.publicKey });
    const asked = (app: typeof rotating, key: KeyObject) =>
      app.inject({
        url: '/charges/ch_1',
        headers: { [PRINCIPAL_HEADER]: signedFor('GET', '/charges/ch_1', key) },
      });
    expect((await asked(rotating, KEYS.privateKey)).statusCode).toBe(200);
    expect((await asked(rotating, previous.privateKey)).statusCode).toBe(200);
    expect((await asked(rotating, generatePrincipalKeys().privateKey)).statusCode).toBe(401);
    const strict = await service();
    expect((await asked(strict, previous.privateKey)).statusCode).toBe(401);
    await rotating.close();
    await strict.close();
  });
});

describe('principal keys', () => {
  it('reads Ed25519 PEMs from the environment (also written on one line with \\n), and refuses anything else at boot', () => {
    // Proves a misconfigured key stops the process at boot instead of answering 401 to everything.
    const oneLine = KEYS.publicKeyPem.trim().replace(/\n/g, '\\n');
    const read = envPrincipalPublicKeys({
      PRINCIPAL_PUBLIC_KEY: oneLine,
      PRINCIPAL_PUBLIC_KEY_PREVIOUS: '',
    });
    expect(read.previousPublicKey).toBeUndefined();
    expect(
      verifyPrincipal(
        signPrincipal(principal, GET_CH_1, principalPrivateKey(KEYS.privateKeyPem)),
        [read.publicKey],
        now,
      ),
    ).not.toBeNull();
    expect(() => envPrincipalPublicKeys({})).toThrow(ConfigError);
    expect(() => principalPublicKey('not a pem')).toThrow(ConfigError);
    expect(() => principalPrivateKey(KEYS.publicKeyPem)).toThrow(ConfigError);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => principalPublicKey(rsa.publicKey)).toThrow(ConfigError);
    expect(() => principalPrivateKey(rsa.privateKey)).toThrow(ConfigError);
  });

  it('refuses to give a service a private key as its verifying key: a service must hold nothing that can sign', () => {
    // Proves a compromised service cannot mint principals because it was configured with the signing key.
    expect(() => principalPublicKey(KEYS.privateKeyPem)).toThrow(/public key only/);
    expect(() => principalPublicKey(KEYS.privateKey)).toThrow(/public key only/);
    expect(() =>
      envPrincipalPublicKeys({
        PRINCIPAL_PUBLIC_KEY: KEYS.publicKeyPem,
        PRINCIPAL_PUBLIC_KEY_PREVIOUS: KEYS.privateKeyPem,
      }),
    ).toThrow(ConfigError);
  });
});

describe('TestPrincipals (specs play the gateway)', () => {
  it('signs an unbound header for the request each inject carries it on, and leaves real tokens alone', async () => {
    // Proves the specs' shortcut signs per request as the gateway does, and that an unbound header alone is refused.
    const principals = new TestPrincipals();
    const app = buildApp({ name: 'svc', log: { level: 'silent' } });
    await app.register(principalPlugin, { publicKey: principals.publicKey, nowMs: () => now });
    app.get('/charges/:id', async (request) => ({
      tenant: apiPrincipal(request, 'charges:read').tenantId,
    }));
    await app.ready();
    const header = principals.header(principal);
    expect(
      (
        await app.inject({
          url: '/charges/ch_1',
          query: { a: '1' },
          headers: { [PRINCIPAL_HEADER]: header },
        })
      ).statusCode,
    ).toBe(401);
    principals.bind(app);
    expect(
      (
        await app.inject({
          url: '/charges/ch_1',
          query: { a: '1' },
          headers: { [PRINCIPAL_HEADER]: header },
        })
      ).statusCode,
    ).toBe(200);
    const elsewhere = principals.sign(principal, 'GET', '/charges/ch_2');
    expect(
      (await app.inject({ url: '/charges/ch_1', headers: { [PRINCIPAL_HEADER]: elsewhere } }))
        .statusCode,
    ).toBe(401);
    await app.close();
  });
});

describe('rotating the principal key pair (docs/runbook.md, "Rotate keys")', () => {
  // A pod's configuration: the gateway signs with `privateKey`; a service verifies with its public keys.
  type Pods = { gateway: KeyObject; services: KeyObject[] };
  const OLD = generatePrincipalKeys();
  const NEW = generatePrincipalKeys();
  const verifies = (signer: KeyObject, verifier: KeyObject[]) =>
    verifyPrincipal(signPrincipal(principal, GET_CH_1, signer), verifier, now) !== null;
  /** During a rolling restart from one step to the next, old and new pods of every app run side by side. */
  const rolloutRefusesNothing = (steps: Pods[]) =>
    steps.slice(1).every((next, i) => {
      const pods = [steps[i]!, next];
      return pods.every((signer) =>
        pods.every((verifier) => verifies(signer.gateway, verifier.services)),
      );
    });

  it('the three steps (services learn the new public key, the gateway switches, the old key is dropped) refuse nothing', () => {
    // Proves the runbook's order keeps every request in flight accepted, whatever pod restarts first.
    expect(
      rolloutRefusesNothing([
        { gateway: OLD.privateKey, services: [OLD.publicKey] },
        { gateway: OLD.privateKey, services: [NEW.publicKey, OLD.publicKey] },
        { gateway: NEW.privateKey, services: [NEW.publicKey, OLD.publicKey] },
        { gateway: NEW.privateKey, services: [NEW.publicKey] },
      ]),
    ).toBe(true);
  });

  it('switching the gateway before the services know the new public key refuses requests', () => {
    // Proves the order matters: a gateway signing with the new key meets services that do not know it yet.
    expect(
      rolloutRefusesNothing([
        { gateway: OLD.privateKey, services: [OLD.publicKey] },
        { gateway: NEW.privateKey, services: [NEW.publicKey, OLD.publicKey] },
      ]),
    ).toBe(false);
    expect(
      rolloutRefusesNothing([
        { gateway: NEW.privateKey, services: [NEW.publicKey, OLD.publicKey] },
        { gateway: NEW.privateKey, services: [NEW.publicKey] },
      ]),
    ).toBe(true);
  });
});
