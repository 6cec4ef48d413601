import { decodeEvent, TOPICS, type EventMap, type EventType } from '@pgw/contracts';
import { generateCnpj, generateCpf } from '@pgw/domain';
import type { BusMessage } from '@pgw/platform-bus';
import { waitFor } from '@pgw/testing';
import { SELLER_DEFAULTS } from '@pgw/gateway-domain/defaults';
import {
  ADMIN_TOKEN,
  bearer,
  createKey,
  createTenant,
  startFixture,
  stopFixture,
  type Fixture,
} from '../testing/gateway-fixture';

describe('the operator API: directory', () => {
  let f: Fixture;
  const published: BusMessage[] = [];

  beforeAll(async () => {
    f = await startFixture();
    await f.bus.subscribe({
      groupId: 'directory-probe',
      topics: [TOPICS.directory],
      handle: async (batch) => void published.push(...batch),
    });
  });
  afterAll(() => stopFixture(f));

  /** The events of one type in the outbox, decoded from their Avro bytes, oldest first. */
  async function outboxEvents<K extends EventType>(
    type: K,
  ): Promise<Array<EventMap[K] & { xid: string }>> {
    const rows = await f.knex.raw(
      `select payload, (xid::text::numeric % 4294967296)::text as xid from gateway.outbox where event_type = ? order by id`,
      [type],
    );
    return rows.rows.map((row: { payload: Uint8Array; xid: string }) => ({
      ...decodeEvent(type, Buffer.from(row.payload)),
      xid: row.xid,
    }));
  }

  /** The id of the transaction that last wrote a row. */
  async function rowXid(table: string, id: string): Promise<string> {
    const rows = await f.knex.raw(`select xmin::text as xid from gateway.${table} where id = ?`, [
      id,
    ]);
    return rows.rows[0].xid;
  }

  describe('admin token', () => {
    const routes: Array<['POST' | 'PATCH' | 'DELETE', string]> = [
      ['POST', '/admin/v1/tenants'],
      ['PATCH', '/admin/v1/tenants/ten_x'],
      ['POST', '/admin/v1/tenants/ten_x/sellers'],
      ['PATCH', '/admin/v1/sellers/seller_x'],
      ['POST', '/admin/v1/tenants/ten_x/pricing-plans'],
      ['PATCH', '/admin/v1/pricing-plans/plan_x'],
      ['POST', '/admin/v1/api-keys'],
      ['DELETE', '/admin/v1/api-keys/key_x'],
      ['POST', '/admin/v1/tenants/ten_x/webhook-endpoints'],
      ['DELETE', '/admin/v1/webhook-endpoints/we_x'],
    ];

    it.each(routes)(
      'refuses %s %s with 401 without the admin token, with a wrong one and with an sk_ key',
      async (method, url) => {
        const tenantId = await createTenant(f);
        const key = await createKey(f, { tenantId, permissions: ['charges:read'] });
        for (const headers of [
          {},
          { authorization: 'Bearer not-the-token-000000000' },
          { authorization: ADMIN_TOKEN },
          { authorization: `Bearer ${ADMIN_TOKEN}x` },
          bearer(key.secret),
        ]) {
          const res = await f.app.inject({ method, url, headers, payload: { name: 'x' } });
          expect(res.statusCode).toBe(401);
          expect(res.json().error).toMatchObject({
            type: 'authentication_error',
            code: 'admin_token_invalid',
          });
        }
      },
    );
  });

  describe('tenants', () => {
    it('creates a tenant and writes gateway.tenant-changed.v1 version 1 in the same transaction', async () => {
      const res = await f.admin('POST', '/admin/v1/tenants', {
        name: 'Marketplace A',
        treasury_available_cash_cents: 5_000_000,
      });
      expect(res.statusCode).toBe(201);
      const tenant = res.json();
      expect(tenant).toEqual({
        object: 'tenant',
        id: expect.stringMatching(/^ten_[A-Za-z0-9]{24}$/),
        name: 'Marketplace A',
        treasury_available_cash_cents: 5_000_000,
        created_at: '2026-03-02T12:00:00.000Z',
        updated_at: '2026-03-02T12:00:00.000Z',
        request_id: res.headers['x-request-id'],
      });
      const event = (await outboxEvents('gateway.tenant-changed.v1')).find(
        (e) => e.tenant_id === tenant.id,
      );
      expect(event).toMatchObject({
        tenant_id: tenant.id,
        name: 'Marketplace A',
        treasury_available_cash_cents: 5_000_000,
        version: 1,
      });
      expect(event?.envelope).toMatchObject({
        event_type: 'gateway.tenant-changed.v1',
        producer: 'gateway',
        tenant_id: tenant.id,
        request_id: res.headers['x-request-id'],
      });
      expect(event?.xid).toBe(await rowXid('tenants', tenant.id));
    });

    it('updates a tenant (PATCH) and announces version 2; the relay publishes both', async () => {
      const tenantId = await createTenant(f);
      expect(
        (await f.admin('POST', '/admin/v1/tenants', { name: 'x' })).json()
          .treasury_available_cash_cents,
      ).toBe(0);
      const res = await f.admin('PATCH', `/admin/v1/tenants/${tenantId}`, {
        treasury_available_cash_cents: 42,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        id: tenantId,
        treasury_available_cash_cents: 42,
        name: 'Loja Exemplo',
      });
      const events = (await outboxEvents('gateway.tenant-changed.v1')).filter(
        (e) => e.tenant_id === tenantId,
      );
      expect(events.map((e) => [e.version, e.treasury_available_cash_cents])).toEqual([
        [1, 0],
        [2, 42],
      ]);
      expect(events[1]?.xid).toBe(await rowXid('tenants', tenantId));
      const seen = await waitFor(
        () => {
          const mine = published.filter((m) => m.key === tenantId);
          return mine.length === 2 ? mine : undefined;
        },
        5_000,
        'the relay to publish both events',
      );
      expect(seen.map((m) => decodeEvent('gateway.tenant-changed.v1', m.value).version)).toEqual([
        1, 2,
      ]);
    });

    it.each([
      ['a missing name', {}, 'parameter_missing', 'name'],
      ['an empty name', { name: '' }, 'parameter_invalid', 'name'],
      ['a blank name', { name: '   ' }, 'parameter_invalid', 'name'],
      ['an unknown field', { name: 'x', plan: 'gold' }, 'parameter_unknown', 'plan'],
      [
        'a negative treasury',
        { name: 'x', treasury_available_cash_cents: -1 },
        'parameter_invalid',
        'treasury_available_cash_cents',
      ],
      [
        'a treasury as a string',
        { name: 'x', treasury_available_cash_cents: '100' },
        'parameter_invalid',
        'treasury_available_cash_cents',
      ],
      [
        'a fractional treasury',
        { name: 'x', treasury_available_cash_cents: 1.5 },
        'parameter_invalid',
        'treasury_available_cash_cents',
      ],
    ])('refuses %s with 422 and writes nothing', async (_name, body, code, param) => {
      const before = (await outboxEvents('gateway.tenant-changed.v1')).length;
      const res = await f.admin('POST', '/admin/v1/tenants', body);
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code, param });
      expect((await outboxEvents('gateway.tenant-changed.v1')).length).toBe(before);
    });

    it('answers 422 invalid_json to a body that is not JSON, and 404 to an unknown or malformed tenant id', async () => {
      const bad = await f.app.inject({
        method: 'POST',
        url: '/admin/v1/tenants',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload: '{"name":',
      });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().error.code).toBe('invalid_json');
      for (const id of ['ten_doesnotexist', 'nope', 'ten_bad-chars']) {
        const res = await f.admin('PATCH', `/admin/v1/tenants/${id}`, { name: 'x' });
        expect([id, res.statusCode, res.json().error.code]).toEqual([
          id,
          404,
          'resource_not_found',
        ]);
      }
      expect(
        (await f.admin('PATCH', `/admin/v1/tenants/${await createTenant(f)}`, {})).statusCode,
      ).toBe(422);
    });
  });

  describe('sellers', () => {
    it('creates a seller with the documented defaults, the document as digits, and announces it', async () => {
      const tenantId = await createTenant(f);
      const cnpj = generateCnpj(77);
      const formatted = `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12)}`;
      const res = await f.admin('POST', `/admin/v1/tenants/${tenantId}/sellers`, {
        name: 'Loja Centro',
        document: formatted,
      });
      expect(res.statusCode).toBe(201);
      const seller = res.json();
      expect(seller).toEqual({
        object: 'seller',
        id: expect.stringMatching(/^seller_[A-Za-z0-9]{24}$/),
        tenant_id: tenantId,
        name: 'Loja Centro',
        document: cnpj,
        document_type: 'cnpj',
        kyc_status: 'pending',
        anticipation_limit_cents: SELLER_DEFAULTS.anticipationLimitCents,
        fee_bps_per_month: 199,
        settlement_delay_days: 30,
        mdr_bps: { credit_card: 299, debit_card: 199, pix: 99, boleto: 149 },
        pricing_plan_id: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        request_id: res.headers['x-request-id'],
      });
      const event = (await outboxEvents('gateway.seller-changed.v1')).find(
        (e) => e.seller_id === seller.id,
      );
      expect(event).toMatchObject({
        tenant_id: tenantId,
        kyc_status: 'pending',
        mdr_bps: { credit_card: 299, debit_card: 199, pix: 99, boleto: 149 },
        pricing_plan_id: null,
        version: 1,
      });
      expect(event?.xid).toBe(await rowXid('sellers', seller.id));
    });

    it('takes every optional field of contract §5', async () => {
      const tenantId = await createTenant(f);
      const res = await f.admin('POST', `/admin/v1/tenants/${tenantId}/sellers`, {
        name: 'Pessoa',
        document: generateCpf(5),
        kyc_status: 'approved',
        anticipation_limit_cents: 1_000_000,
        fee_bps_per_month: 250,
        settlement_delay_days: 14,
        mdr_bps: { pix: 50 },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({
        document_type: 'cpf',
        kyc_status: 'approved',
        anticipation_limit_cents: 1_000_000,
        fee_bps_per_month: 250,
        settlement_delay_days: 14,
        mdr_bps: { credit_card: 299, pix: 50 },
      });
    });

    it.each([
      [
        'a CPF with wrong check digits',
        { document: '123.456.789-00' },
        'parameter_invalid',
        'document',
      ],
      ['letters as document', { document: 'abc' }, 'parameter_invalid', 'document'],
      ['a missing document', { document: undefined }, 'parameter_missing', 'document'],
      ['an unknown KYC status', { kyc_status: 'maybe' }, 'parameter_invalid', 'kyc_status'],
      ['an unknown MDR method', { mdr_bps: { cash: 1 } }, 'parameter_unknown', 'mdr_bps.cash'],
      ['an MDR above 100%', { mdr_bps: { pix: 10_001 } }, 'parameter_invalid', 'mdr_bps.pix'],
      [
        'a negative limit',
        { anticipation_limit_cents: -5 },
        'parameter_invalid',
        'anticipation_limit_cents',
      ],
      ['an unknown field', { iban: 'x' }, 'parameter_unknown', 'iban'],
    ])('refuses %s with 422', async (_name, override, code, param) => {
      const tenantId = await createTenant(f);
      const res = await f.admin('POST', `/admin/v1/tenants/${tenantId}/sellers`, {
        name: 'x',
        document: generateCpf(9),
        ...override,
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code, param });
    });

    it('answers 404 for an unknown tenant', async () => {
      const res = await f.admin('POST', '/admin/v1/tenants/ten_unknown/sellers', {
        name: 'x',
        document: generateCpf(9),
      });
      expect(res.statusCode).toBe(404);
    });

    it('updates KYC, limits and the plan override (PATCH), each change a new version', async () => {
      const tenantId = await createTenant(f);
      const sellerId = (
        await f.admin('POST', `/admin/v1/tenants/${tenantId}/sellers`, {
          name: 'x',
          document: generateCpf(11),
        })
      ).json().id;
      const plan = (
        await f.admin('POST', `/admin/v1/tenants/${tenantId}/pricing-plans`, {
          name: 'Gold',
          fee_bps_per_month: 150,
          settlement_delay_days: 2,
        })
      ).json();
      const res = await f.admin('PATCH', `/admin/v1/sellers/${sellerId}`, {
        kyc_status: 'approved',
        anticipation_limit_cents: 777,
        pricing_plan_id: plan.id,
        mdr_bps: { credit_card: 310 },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        id: sellerId,
        kyc_status: 'approved',
        anticipation_limit_cents: 777,
        pricing_plan_id: plan.id,
        mdr_bps: { credit_card: 310, debit_card: 199 },
      });
      const cleared = await f.admin('PATCH', `/admin/v1/sellers/${sellerId}`, {
        pricing_plan_id: null,
      });
      expect(cleared.json().pricing_plan_id).toBeNull();
      const events = (await outboxEvents('gateway.seller-changed.v1')).filter(
        (e) => e.seller_id === sellerId,
      );
      expect(events.map((e) => [e.version, e.kyc_status, e.pricing_plan_id])).toEqual([
        [1, 'pending', null],
        [2, 'approved', plan.id],
        [3, 'approved', null],
      ]);
      expect(events[2]?.xid).toBe(await rowXid('sellers', sellerId));
    });

    it("refuses another tenant's plan as an override (404, param pricing_plan_id) and changes nothing", async () => {
      const tenantId = await createTenant(f);
      const otherTenant = await createTenant(f);
      const sellerId = (
        await f.admin('POST', `/admin/v1/tenants/${tenantId}/sellers`, {
          name: 'x',
          document: generateCpf(12),
        })
      ).json().id;
      const foreignPlan = (
        await f.admin('POST', `/admin/v1/tenants/${otherTenant}/pricing-plans`, {
          name: 'Other',
          fee_bps_per_month: 1,
          settlement_delay_days: 1,
        })
      ).json();
      const res = await f.admin('PATCH', `/admin/v1/sellers/${sellerId}`, {
        kyc_status: 'approved',
        pricing_plan_id: foreignPlan.id,
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({
        code: 'resource_not_found',
        param: 'pricing_plan_id',
      });
      expect(
        (await outboxEvents('gateway.seller-changed.v1')).filter((e) => e.seller_id === sellerId),
      ).toHaveLength(1);
    });

    it('answers 404 to an unknown seller and 422 to an empty or invalid PATCH', async () => {
      expect(
        (await f.admin('PATCH', '/admin/v1/sellers/seller_unknown', { kyc_status: 'approved' }))
          .statusCode,
      ).toBe(404);
      const tenantId = await createTenant(f);
      const sellerId = (
        await f.admin('POST', `/admin/v1/tenants/${tenantId}/sellers`, {
          name: 'x',
          document: generateCpf(13),
        })
      ).json().id;
      expect((await f.admin('PATCH', `/admin/v1/sellers/${sellerId}`, {})).statusCode).toBe(422);
      const bad = await f.admin('PATCH', `/admin/v1/sellers/${sellerId}`, {
        document: '11111111111',
      });
      expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'document' });
    });
  });

  describe('pricing plans', () => {
    it('creates plans, keeps one default per tenant, and announces the demoted default too', async () => {
      const tenantId = await createTenant(f);
      const first = await f.admin('POST', `/admin/v1/tenants/${tenantId}/pricing-plans`, {
        name: 'Basic',
        fee_bps_per_month: 199,
        settlement_delay_days: 30,
        default: true,
      });
      expect(first.statusCode).toBe(201);
      expect(first.json()).toEqual({
        object: 'pricing_plan',
        id: expect.stringMatching(/^plan_[A-Za-z0-9]{24}$/),
        tenant_id: tenantId,
        name: 'Basic',
        fee_bps_per_month: 199,
        settlement_delay_days: 30,
        mdr_bps: { credit_card: 299, debit_card: 199, pix: 99, boleto: 149 },
        default: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        request_id: first.headers['x-request-id'],
      });
      const second = await f.admin('POST', `/admin/v1/tenants/${tenantId}/pricing-plans`, {
        name: 'Pro',
        fee_bps_per_month: 99,
        settlement_delay_days: 2,
        mdr_bps: { credit_card: 250 },
        default: true,
      });
      expect(second.json()).toMatchObject({
        default: true,
        mdr_bps: { credit_card: 250, pix: 99 },
      });
      const events = (await outboxEvents('gateway.pricing-plan-changed.v1')).filter(
        (e) => e.tenant_id === tenantId,
      );
      expect(events.map((e) => [e.name, e.is_default, e.version])).toEqual([
        ['Basic', true, 1],
        ['Basic', false, 2],
        ['Pro', true, 1],
      ]);
      expect(events[1]?.xid).toBe(events[2]?.xid);
      const defaults = await f.knex
        .withSchema('gateway')
        .from('pricing_plans')
        .where({ tenant_id: tenantId, is_default: true });
      expect(defaults.map((p: { id: string }) => p.id)).toEqual([second.json().id]);
      const back = await f.admin('PATCH', `/admin/v1/pricing-plans/${first.json().id}`, {
        default: true,
        fee_bps_per_month: 180,
      });
      expect(back.json()).toMatchObject({ default: true, fee_bps_per_month: 180 });
      const after = await f.knex
        .withSchema('gateway')
        .from('pricing_plans')
        .where({ tenant_id: tenantId, is_default: true });
      expect(after.map((p: { id: string }) => p.id)).toEqual([first.json().id]);
    });

    it.each([
      [
        'a missing fee',
        { name: 'x', settlement_delay_days: 1 },
        'parameter_missing',
        'fee_bps_per_month',
      ],
      [
        'a negative delay',
        { name: 'x', fee_bps_per_month: 1, settlement_delay_days: -1 },
        'parameter_invalid',
        'settlement_delay_days',
      ],
      [
        'default as a string',
        { name: 'x', fee_bps_per_month: 1, settlement_delay_days: 1, default: 'yes' },
        'parameter_invalid',
        'default',
      ],
      [
        'is_default instead of default',
        { name: 'x', fee_bps_per_month: 1, settlement_delay_days: 1, is_default: true },
        'parameter_unknown',
        'is_default',
      ],
    ])('refuses %s with 422', async (_name, body, code, param) => {
      const tenantId = await createTenant(f);
      const res = await f.admin('POST', `/admin/v1/tenants/${tenantId}/pricing-plans`, body);
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code, param });
    });

    it('answers 404 for an unknown tenant or plan', async () => {
      expect(
        (
          await f.admin('POST', '/admin/v1/tenants/ten_nope/pricing-plans', {
            name: 'x',
            fee_bps_per_month: 1,
            settlement_delay_days: 1,
          })
        ).statusCode,
      ).toBe(404);
      expect(
        (await f.admin('PATCH', '/admin/v1/pricing-plans/plan_nope', { name: 'y' })).statusCode,
      ).toBe(404);
    });
  });

  describe('webhook endpoints', () => {
    it('stores a test endpoint for every event by default, shows its secret, and announces it with livemode false', async () => {
      const tenantId = await createTenant(f);
      const res = await f.admin('POST', `/admin/v1/tenants/${tenantId}/webhook-endpoints`, {
        url: 'https://example.com/hooks',
      });
      expect(res.statusCode).toBe(201);
      const endpoint = res.json();
      expect(endpoint).toEqual({
        object: 'webhook_endpoint',
        id: expect.stringMatching(/^we_[A-Za-z0-9]{24}$/),
        tenant_id: tenantId,
        url: 'https://example.com/hooks',
        events: ['*'],
        environment: 'test',
        livemode: false,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{32}$/),
        created_at: expect.any(String),
        updated_at: expect.any(String),
        request_id: res.headers['x-request-id'],
      });
      const event = (await outboxEvents('gateway.webhook-endpoint-changed.v2')).find(
        (e) => e.webhook_endpoint_id === endpoint.id,
      );
      expect(event).toMatchObject({
        tenant_id: tenantId,
        url: endpoint.url,
        events: ['*'],
        secret: endpoint.secret,
        livemode: false,
        version: 1,
      });
      expect(event?.envelope.livemode).toBe(false);
      expect(event?.xid).toBe(await rowXid('webhook_endpoints', endpoint.id));
    });

    it('Proves the signing secret goes only to gateway.webhook-endpoints, never to gateway.directory that every service reads', async () => {
      const tenantId = await createTenant(f);
      const res = await f.admin('POST', `/admin/v1/tenants/${tenantId}/webhook-endpoints`, {
        url: 'https://example.com/secret',
      });
      const secret: string = res.json().secret;
      const rows = await f.knex.raw(`select topic, payload from gateway.outbox`);
      const carrying = rows.rows
        .filter((row: { payload: Uint8Array }) => Buffer.from(row.payload).includes(secret))
        .map((row: { topic: string }) => row.topic);
      expect(carrying).toEqual(['gateway.webhook-endpoints']);
    });

    it('deletes an endpoint and announces it as receiving no kind, one version up; a second delete is a 404', async () => {
      // Proves what `pgw listen` relies on when it ends: the endpoint leaves the directory and the webhooks
      // service learns, in the same transaction's event, that it receives nothing more.
      const tenantId = await createTenant(f);
      const created = (
        await f.admin('POST', `/admin/v1/tenants/${tenantId}/webhook-endpoints`, {
          url: 'https://example.com/session',
          events: ['charge.paid'],
        })
      ).json();
      const res = await f.admin('DELETE', `/admin/v1/webhook-endpoints/${created.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        object: 'webhook_endpoint',
        id: created.id,
        deleted: true,
        request_id: res.headers['x-request-id'],
      });
      const events = (await outboxEvents('gateway.webhook-endpoint-changed.v2')).filter(
        (e) => e.webhook_endpoint_id === created.id,
      );
      expect(events.map((e) => [Number(e.version), e.events])).toEqual([
        [1, ['charge.paid']],
        [2, []],
      ]);
      expect(events[1]).toMatchObject({
        tenant_id: tenantId,
        url: created.url,
        secret: created.secret,
        livemode: false,
      });
      expect(
        (await f.admin('DELETE', `/admin/v1/webhook-endpoints/${created.id}`)).statusCode,
      ).toBe(404);
      expect((await f.admin('DELETE', '/admin/v1/webhook-endpoints/not_an_id')).statusCode).toBe(
        404,
      );
    });

    it('stores a live endpoint for chosen events', async () => {
      const tenantId = await createTenant(f);
      const res = await f.admin('POST', `/admin/v1/tenants/${tenantId}/webhook-endpoints`, {
        url: 'https://example.com/live',
        events: ['charge.paid', 'refund.succeeded'],
        environment: 'live',
      });
      expect(res.json()).toMatchObject({
        events: ['charge.paid', 'refund.succeeded'],
        environment: 'live',
        livemode: true,
      });
    });

    it.each([
      ['a missing url', {}, 'parameter_missing', 'url'],
      ['a url that is not http(s)', { url: 'ftp://example.com' }, 'parameter_invalid', 'url'],
      ['a url that is not a url', { url: 'not a url' }, 'parameter_invalid', 'url'],
      [
        'an unknown event kind',
        { url: 'https://e.com', events: ['charge.exploded'] },
        'parameter_invalid',
        'events.0',
      ],
      ['an empty event list', { url: 'https://e.com', events: [] }, 'parameter_invalid', 'events'],
      [
        'an unknown environment',
        { url: 'https://e.com', environment: 'prod' },
        'parameter_invalid',
        'environment',
      ],
      // Contract §7: no loopback, private, link-local, unique-local or metadata target (WEBHOOK_ALLOW_PRIVATE_TARGETS unset here).
      ['a loopback target', { url: 'http://127.0.0.1:3000/hooks' }, 'parameter_invalid', 'url'],
      ['localhost', { url: 'http://localhost/hooks' }, 'parameter_invalid', 'url'],
      ['a private target', { url: 'https://10.0.0.5/hooks' }, 'parameter_invalid', 'url'],
      ['a CGNAT target', { url: 'https://100.64.1.1/hooks' }, 'parameter_invalid', 'url'],
      [
        'the metadata address',
        { url: 'http://169.254.169.254/latest/meta-data/' },
        'parameter_invalid',
        'url',
      ],
      ['an IPv6 loopback', { url: 'http://[::1]/hooks' }, 'parameter_invalid', 'url'],
      [
        'an IPv4-mapped loopback',
        { url: 'http://[::ffff:127.0.0.1]/hooks' },
        'parameter_invalid',
        'url',
      ],
      [
        'a unique-local IPv6 target',
        { url: 'https://[fd00::1]/hooks' },
        'parameter_invalid',
        'url',
      ],
      ['a link-local IPv6 target', { url: 'https://[fe80::1]/hooks' }, 'parameter_invalid', 'url'],
      ['0.0.0.0', { url: 'http://0.0.0.0/hooks' }, 'parameter_invalid', 'url'],
      [
        'a live endpoint over http://',
        { url: 'http://hooks.example.com/x', environment: 'live' },
        'parameter_invalid',
        'url',
      ],
    ])('refuses %s with 422', async (_name, body, code, param) => {
      const tenantId = await createTenant(f);
      const res = await f.admin('POST', `/admin/v1/tenants/${tenantId}/webhook-endpoints`, body);
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code, param });
    });

    it('answers 404 for an unknown tenant', async () => {
      expect(
        (
          await f.admin('POST', '/admin/v1/tenants/ten_nope/webhook-endpoints', {
            url: 'https://e.com',
          })
        ).statusCode,
      ).toBe(404);
    });
  });

  describe('demo provisioning', () => {
    it('makes one demo tenant and approved seller, and a working full-permission test key on each call', async () => {
      const first = await f.gateway.provisionDemo();
      const second = await f.gateway.provisionDemo();
      expect(second.tenantId).toBe(first.tenantId);
      expect(second.sellerId).toBe(first.sellerId);
      expect(second.apiKey).not.toBe(first.apiKey);
      expect(first.apiKey).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
      const res = await f.app.inject({
        method: 'POST',
        url: '/api/v1/payment-methods/tokenize',
        headers: bearer(first.apiKey),
        payload: {},
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().principal).toMatchObject({
        tenantId: first.tenantId,
        sellerId: first.sellerId,
        livemode: false,
        permissions: expect.arrayContaining(['payment_methods:tokenize', 'anticipations:create']),
      });
    });
  });
});
