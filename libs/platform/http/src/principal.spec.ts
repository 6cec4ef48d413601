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
});
