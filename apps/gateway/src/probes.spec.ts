import { startFixture, stopFixture, type Fixture } from './testing/gateway-fixture';

describe("the gateway's probes", () => {
  let f: Fixture;
  let brokerUp = true;

  beforeAll(async () => {
    f = await startFixture();
    Object.assign(f.bus, {
      checkHealth: async () => {
        if (!brokerUp) throw new Error('broker unreachable');
      },
    });
  });
  afterAll(() => stopFixture(f));

  it('keeps /livez at 200 while /readyz and /health turn 503 without the broker, and the public health still answers', async () => {
    // Proves a Kafka outage takes the gateway out of the Service (readiness) without restarting it (liveness).
    const statuses = async (): Promise<number[]> =>
      Promise.all(
        ['/livez', '/readyz', '/health', '/api/v1/health'].map(
          async (url) => (await f.app.inject({ url })).statusCode,
        ),
      );
    expect(await statuses()).toEqual([200, 200, 200, 200]);
    brokerUp = false;
    expect(await statuses()).toEqual([200, 503, 503, 200]);
    const down = await f.app.inject({ url: '/readyz' });
    expect(down.json().error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
    brokerUp = true;
    expect(await statuses()).toEqual([200, 200, 200, 200]);
  });
});
