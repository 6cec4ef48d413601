import {
  bearer,
  createKey,
  createSeller,
  createTenant,
  startFixture,
  stopFixture,
  stubUpstreams,
  type Fixture,
  type StubCall,
} from '../testing/gateway-fixture';

// Contract §4a (KYC of tokenize, of a charge's seller and of its split recipients) and §4b (read-your-
// writes): two replicas of the gateway over one database, as behind a load balancer. The operator talks
// to replica A; the integrator's next request lands on replica B, whose key cache is warm.
describe('KYC, read at request time by every replica', () => {
  let a: Fixture;
  let b: Fixture;
  const calls: StubCall[] = [];
  let tenantId: string;

  beforeAll(async () => {
    a = await startFixture();
    b = await startFixture({ knex: a.knex, upstreams: await stubUpstreams(undefined, calls) });
    tenantId = await createTenant(a);
  });
  afterAll(async () => {
    await stopFixture(b, { keepDatabase: true });
    await stopFixture(a);
  });

  const patchKyc = async (sellerId: string, kycStatus: string) => {
    const res = await a.admin('PATCH', `/admin/v1/sellers/${sellerId}`, { kyc_status: kycStatus });
    expect([res.statusCode, res.json().kyc_status]).toEqual([200, kycStatus]);
  };
  const post = (url: string, secret: string, payload: unknown) =>
    b.app.inject({
      method: 'POST',
      url,
      headers: { ...bearer(secret), 'content-type': 'application/json' },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const outcome = (res: { statusCode: number; json(): any }) => [
    res.statusCode,
    res.statusCode === 200 ? res.json().service : res.json().error.code,
  ];

  it('tokenize: an approval on one replica opens it on another at once, a rejection closes it at once', async () => {
    const sellerId = await createSeller(a, tenantId);
    const { secret } = await createKey(a, {
      tenantId,
      sellerId,
      permissions: ['payment_methods:tokenize'],
    });
    const tokenize = () => post('/api/v1/payment-methods/tokenize', secret, {});
    expect(outcome(await tokenize())).toEqual([403, 'seller_kyc_required']); // B now caches the key
    await patchKyc(sellerId, 'approved');
    expect(outcome(await tokenize())).toEqual([200, 'vault']);
    await patchKyc(sellerId, 'rejected');
    expect(outcome(await tokenize())).toEqual([403, 'seller_kyc_required']);
    await patchKyc(sellerId, 'approved');
    expect(outcome(await tokenize())).toEqual([200, 'vault']);
    await patchKyc(sellerId, 'pending');
    expect(outcome(await tokenize())).toEqual([403, 'seller_kyc_required']);
  });

  it('POST /charges: the seller of a seller-scoped key must be approved, whatever the method, before the body is looked at', async () => {
    const sellerId = await createSeller(a, tenantId);
    const { secret } = await createKey(a, { tenantId, sellerId, permissions: ['charges:create'] });
    const before = calls.length;
    for (const payment_method of ['PIX', 'BOLETO', 'CREDIT_CARD']) {
      expect([
        payment_method,
        ...outcome(await post('/api/v1/charges', secret, { amount: 100, payment_method })),
      ]).toEqual([payment_method, 403, 'seller_kyc_required']);
    }
    // 403 before 422: not even bad JSON is looked at.
    expect(outcome(await post('/api/v1/charges', secret, '{"amount":'))).toEqual([
      403,
      'seller_kyc_required',
    ]);
    expect(calls.length).toBe(before);
    await patchKyc(sellerId, 'approved');
    expect(
      outcome(await post('/api/v1/charges', secret, { amount: 100, payment_method: 'PIX' })),
    ).toEqual([200, 'charges']);
    await patchKyc(sellerId, 'rejected');
    expect(
      outcome(await post('/api/v1/charges', secret, { amount: 100, payment_method: 'BOLETO' })),
    ).toEqual([403, 'seller_kyc_required']);
  });

  it('POST /charges: every split recipient of the tenant must be approved (422 on its param), with a tenant-wide key too', async () => {
    const owner = await createSeller(a, tenantId, { kyc_status: 'approved' });
    const approved = await createSeller(a, tenantId, { kyc_status: 'approved' });
    const pending = await createSeller(a, tenantId);
    const sellerKey = (
      await createKey(a, { tenantId, sellerId: owner, permissions: ['charges:create'] })
    ).secret;
    const tenantKey = (await createKey(a, { tenantId, permissions: ['charges:create'] })).secret;
    const body = {
      amount: 1_000,
      payment_method: 'PIX',
      split: [
        { recipient_seller_id: approved, amount_cents: 100 },
        { recipient_seller_id: pending, amount_cents: 100 },
      ],
    };
    for (const secret of [sellerKey, tenantKey]) {
      const before = calls.length;
      const res = await post('/api/v1/charges', secret, body);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        error: {
          type: 'invalid_request_error',
          code: 'parameter_invalid',
          message: expect.stringContaining('KYC'),
          param: 'split.1.recipient_seller_id',
        },
        request_id: res.headers['x-request-id'],
      });
      expect(calls.length).toBe(before);
    }
    await patchKyc(pending, 'approved');
    expect(outcome(await post('/api/v1/charges', sellerKey, body))).toEqual([200, 'charges']);
    await patchKyc(approved, 'rejected');
    expect((await post('/api/v1/charges', tenantKey, body)).json().error.param).toBe(
      'split.0.recipient_seller_id',
    );
  });

  it("leaves to the service what is not a seller of the tenant, and a body it will refuse anyway: another tenant's seller is not told apart from no seller", async () => {
    const otherTenant = await createTenant(a);
    const foreignPending = await createSeller(a, otherTenant);
    const pending = await createSeller(a, tenantId);
    const { secret } = await createKey(a, { tenantId, permissions: ['charges:create'] });
    const forwarded = [
      { split: [{ recipient_seller_id: foreignPending, amount_cents: 100 }] },
      { split: [{ recipient_seller_id: 'seller_nosuchone', amount_cents: 100 }] },
      { split: 'nope' },
      { split: [null, 7, 'x', { recipient_seller_id: 42 }] },
      {
        split: Array.from({ length: 11 }, () => ({
          recipient_seller_id: pending,
          amount_cents: 1,
        })),
      },
      [{ split: [{ recipient_seller_id: pending }] }],
      null,
    ];
    for (const extra of forwarded) {
      const payload =
        extra === null || Array.isArray(extra)
          ? extra
          : { amount: 1_000, payment_method: 'PIX', ...extra };
      expect([
        JSON.stringify(extra).slice(0, 60),
        ...outcome(await post('/api/v1/charges', secret, payload)),
      ]).toEqual([JSON.stringify(extra).slice(0, 60), 200, 'charges']);
    }
    // Bad JSON is still the gateway's invalid_json, checked before the recipients.
    expect(
      outcome(
        await post('/api/v1/charges', secret, `{"split":[{"recipient_seller_id":"${pending}"}]`),
      ),
    ).toEqual([422, 'invalid_json']);
  });
});
