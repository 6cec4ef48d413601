// Anticipation end to end through the gateway, as an integrator drives it with the demo key: a 3x card
// charge becomes three receivables, the seller simulates and executes their anticipation, and
// receivables, the ledger and webhooks follow through the events.
import { startAllInOne, type AllInOne } from './all-in-one';
import { anticipationFlow, client, type Target } from './e2e.scenarios';

jest.setTimeout(60_000);
let system: AllInOne;

beforeAll(async () => {
  system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: true,
    log: { level: 'silent' },
    env: { ...process.env, WEBHOOK_POLL_INTERVAL_MS: '50' },
  });
  if (system.demo === null) throw new Error('the demo was not provisioned');
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

const target = (): Target => ({
  url: system.url,
  adminToken: system.adminToken,
  tenantId: system.demo!.tenantId,
  apiKey: system.demo!.apiKey,
});
const call = (...args: Parameters<ReturnType<typeof client>['call']>) =>
  client(target()).call(...args);
const admin = (...args: Parameters<ReturnType<typeof client>['admin']>) =>
  client(target()).admin(...args);

describe('anticipation end to end through the gateway (demo key)', () => {
  it('tokenize → 3x credit charge → simulate → execute → receivables anticipated and available → balance moved → webhook', async () => {
    // Proves issue 7's whole path: the anticipation service prices the receivables the charge created,
    // executes atomically, and receivables, the ledger and webhooks apply its event.
    await anticipationFlow(target());
  });

  it('refuses a key without a seller at the gateway (403 seller_scope_required) on every anticipation route', async () => {
    // Proves the seller scope of api-v1 §5 holds through the gateway.
    const key = await admin('POST', '/admin/v1/api-keys', {
      tenant_id: system.demo!.tenantId,
      environment: 'test',
      permissions: ['anticipations:read', 'anticipations:create'],
    });
    expect(key.status).toBe(201);
    for (const [method, path] of [
      ['POST', '/api/v1/anticipations/simulate'],
      ['POST', '/api/v1/anticipations'],
      ['GET', '/api/v1/anticipations'],
      ['GET', '/api/v1/anticipations/ant_abc'],
    ] as const) {
      const res = await call(method, path, { bearer: key.body.secret });
      expect([method, path, res.status, res.body.error.code]).toEqual([
        method,
        path,
        403,
        'seller_scope_required',
      ]);
    }
  });
});
