import { ConfigError } from '@pgw/platform-http';
import {
  bearer,
  createKey,
  createSeller,
  createTenant,
  startFixture,
  stopFixture,
  type Fixture,
} from '../testing/gateway-fixture';
import { trustedProxies } from './trusted-proxies';

describe('TRUSTED_PROXIES', () => {
  it('is a comma-separated list of addresses, CIDRs and range names; unset or empty is none; anything else stops the start', () => {
    // Proves a typo cannot silently trust everyone or no one.
    expect(trustedProxies('')).toEqual([]);
    expect(trustedProxies(' ')).toEqual([]);
    expect(trustedProxies('10.0.0.0/8, 192.0.2.10,fd00::/8, uniquelocal')).toEqual([
      '10.0.0.0/8',
      '192.0.2.10',
      'fd00::/8',
      'uniquelocal',
    ]);
    for (const bad of ['10.0.0.0/33', 'lb.internal', '*', '10.0.0.0/', 'fd00::/129']) {
      expect(() => trustedProxies(bad)).toThrow(ConfigError);
    }
  });
});

/** The client's address the service received in the signed principal, for a request from `socket` carrying `forwardedFor`. */
async function seenBy(
  f: Fixture,
  secret: string,
  socket: string,
  forwardedFor?: string,
): Promise<unknown> {
  const res = await f.app.inject({
    url: '/api/v1/charges/ch_1',
    remoteAddress: socket,
    headers: {
      ...bearer(secret),
      ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
    },
  });
  expect(res.statusCode).toBe(200);
  return res.json().principal.clientIp;
}

describe.each([
  { trusted: undefined, fromProxy: '10.1.2.3' },
  { trusted: '10.0.0.0/8', fromProxy: '203.0.113.7' },
])('the client address a service receives, TRUSTED_PROXIES=$trusted', ({ trusted, fromProxy }) => {
  let f: Fixture;
  let secret: string;

  beforeAll(async () => {
    f = await startFixture({ env: trusted === undefined ? {} : { TRUSTED_PROXIES: trusted } });
    const tenantId = await createTenant(f);
    const sellerId = await createSeller(f, tenantId, { kyc_status: 'approved' });
    secret = (await createKey(f, { tenantId, sellerId, permissions: ['charges:read'] })).secret;
  });
  afterAll(async () => {
    await stopFixture(f);
  });

  it("is signed into the principal: the socket's, or what a trusted proxy reports; never what the client wrote", async () => {
    // Proves a client cannot choose the address: its own X-Forwarded-For entries come before the trusted hop's.
    expect(await seenBy(f, secret, '10.1.2.3', '192.0.2.66, 203.0.113.7')).toBe(fromProxy);
    // A hop that is not trusted is the client, whatever it forwards.
    expect(await seenBy(f, secret, '198.51.100.20', '192.0.2.66')).toBe('198.51.100.20');
    expect(await seenBy(f, secret, '198.51.100.20')).toBe('198.51.100.20');
  });
});
