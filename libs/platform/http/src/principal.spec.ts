import { Type } from '@sinclair/typebox';
import { buildApp } from './build-app';
import { PRINCIPAL_HEADER, signPrincipal, verifyPrincipal, type ApiKeyPrincipal } from './principal';
import { apiPrincipal, principalPlugin, sellerPrincipal } from './principal-plugin';

const SECRET = 'principal-secret-for-tests-0123456789';
const now = 1_800_000_000_000;
const principal: ApiKeyPrincipal = {
  kind: 'api_key',
  tenantId: 'ten_a',
  sellerId: null,
  keyId: 'key_a',
  permissions: ['charges:read'],
  livemode: false,
  requestId: 'req_abc',
  expiresAtMs: now + 60_000,
};

describe('signed principal', () => {
  it('round-trips a principal signed with the same secret', () => {
    expect(verifyPrincipal(signPrincipal(principal, SECRET), SECRET, now)).toEqual(principal);
  });

  it('refuses a forged, tampered, expired or malformed token', () => {
    const token = signPrincipal(principal, SECRET);
    expect(verifyPrincipal(signPrincipal(principal, 'another-secret-0123456789'), SECRET, now)).toBeNull();
    const [data, mac] = token.split('.');
    const tampered = Buffer.from(JSON.stringify({ ...principal, tenantId: 'ten_b' })).toString('base64url');
    expect(verifyPrincipal(`${tampered}.${mac}`, SECRET, now)).toBeNull();
    expect(verifyPrincipal(token, SECRET, now + 61_000)).toBeNull();
    for (const bad of ['', '.', 'abc', `${data}.`, `.${mac}`, 'a.b.c', undefined]) {
      expect(verifyPrincipal(bad, SECRET, now)).toBeNull();
    }
  });

  it('makes a service refuse requests without a valid principal and check the permission itself', async () => {
    const app = buildApp({ name: 'svc', log: { level: 'silent' } });
    await app.register(principalPlugin, { secret: SECRET, publicRoutes: ['/health'], nowMs: () => now });
    app.get('/health', async () => ({ ok: true }));
    app.get('/charges/:id', { schema: { params: Type.Object({ id: Type.String() }) } }, async (request) => {
      const p = apiPrincipal(request, 'charges:read');
      return { tenant: p.tenantId };
    });
    app.get('/balance', async (request) => ({ seller: sellerPrincipal(request, 'charges:read').sellerId }));
    await app.ready();

    expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    const missing = await app.inject({ url: '/charges/ch_1' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('principal_invalid');
    const forged = await app.inject({ url: '/charges/ch_1', headers: { [PRINCIPAL_HEADER]: signPrincipal(principal, 'wrong-secret-0123456789') } });
    expect(forged.statusCode).toBe(401);
    const expired = await app.inject({ url: '/charges/ch_1', headers: { [PRINCIPAL_HEADER]: signPrincipal({ ...principal, expiresAtMs: now - 1 }, SECRET) } });
    expect(expired.statusCode).toBe(401);

    const ok = await app.inject({ url: '/charges/ch_1', headers: { [PRINCIPAL_HEADER]: signPrincipal(principal, SECRET) } });
    expect(ok.json()).toMatchObject({ tenant: 'ten_a' });
    const noPerm = await app.inject({ url: '/charges/ch_1', headers: { [PRINCIPAL_HEADER]: signPrincipal({ ...principal, permissions: [] }, SECRET) } });
    expect(noPerm.statusCode).toBe(403);
    expect(noPerm.json().error.code).toBe('permission_denied');
    const noSeller = await app.inject({ url: '/balance', headers: { [PRINCIPAL_HEADER]: signPrincipal(principal, SECRET) } });
    expect(noSeller.statusCode).toBe(403);
    expect(noSeller.json().error.code).toBe('seller_scope_required');
    await app.close();
  });

  it('a service given the previous secret accepts principals signed with either secret, and no other', async () => {
    const previous = 'principal-secret-before-rotation-0123';
    const app = buildApp({ name: 'svc', log: { level: 'silent' } });
    await app.register(principalPlugin, { secret: SECRET, previousSecret: previous, nowMs: () => now });
    app.get('/charges/:id', async (request) => ({ tenant: apiPrincipal(request, 'charges:read').tenantId }));
    await app.ready();
    const asked = (secret: string) => app.inject({ url: '/charges/ch_1', headers: { [PRINCIPAL_HEADER]: signPrincipal(principal, secret) } });
    expect((await asked(SECRET)).statusCode).toBe(200);
    expect((await asked(previous)).statusCode).toBe(200);
    expect((await asked('a-third-secret-nobody-has-0123456')).statusCode).toBe(401);
    // Without it, the same principal signed with the previous secret is refused.
    const strict = buildApp({ name: 'svc', log: { level: 'silent' } });
    await strict.register(principalPlugin, { secret: SECRET, nowMs: () => now });
    strict.get('/charges/:id', async (request) => ({ tenant: apiPrincipal(request, 'charges:read').tenantId }));
    expect((await strict.inject({ url: '/charges/ch_1', headers: { [PRINCIPAL_HEADER]: signPrincipal(principal, previous) } })).statusCode).toBe(401);
    await app.close();
    await strict.close();
  });
});

describe('rotating PRINCIPAL_SECRET (docs/runbook.md, "Rotate keys")', () => {
  // A pod's configuration: the gateway signs with `current`; a service verifies with current and previous.
  type Pod = { current: string; previous?: string };
  const OLD = 'principal-secret-old-0123456789abcdef';
  const NEW = 'principal-secret-new-0123456789abcdef';
  const verifies = (signer: Pod, verifier: Pod) =>
    verifyPrincipal(signPrincipal(principal, signer.current), verifier.previous === undefined ? [verifier.current] : [verifier.current, verifier.previous], now) !== null;
  /** During a rolling restart from one step to the next, old and new pods of every app run side by side. */
  const rolloutRefusesNothing = (steps: Pod[]) =>
    steps.slice(1).every((next, i) => {
      const pods = [steps[i]!, next];
      return pods.every((signer) => pods.every((verifier) => verifies(signer, verifier)));
    });

  it('the three steps (add the new secret as previous, swap, drop the old) refuse nothing, whatever restarts first', () => {
    expect(rolloutRefusesNothing([{ current: OLD }, { current: OLD, previous: NEW }, { current: NEW, previous: OLD }, { current: NEW }])).toBe(true);
  });

  it('changing the secret in one step would refuse the requests an old pod signs for a new pod, and the reverse', () => {
    expect(rolloutRefusesNothing([{ current: OLD }, { current: NEW }])).toBe(false);
    // The previous secret alone, set with the new one in one step, still breaks a new gateway pod's
    // requests to a service pod not yet restarted.
    expect(rolloutRefusesNothing([{ current: OLD }, { current: NEW, previous: OLD }])).toBe(false);
  });
});
