import { InProcessBus } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { generatePrincipalKeys } from '@pgw/platform-http';
import { systemClock } from './clock';
import { InjectPeers } from './peers';
import { startService, type ServiceContext, type ServiceDefinition } from './service';

// The gateway is started by startService as an edge (ServiceDefinition.edge): these hold the difference
// from a service behind it, which the gateway's own specs rely on.
describe('an edge service (the gateway) started by startService', () => {
  const knex = createPgliteKnex(null);
  afterAll(() => knex.destroy());

  const context = (schema: string): ServiceContext => ({
    db: sharedDb(knex, schema),
    bus: new InProcessBus(),
    clock: systemClock,
    principalPublicKey: generatePrincipalKeys().publicKey,
    peers: new InjectPeers(),
    env: {},
    log: { level: 'silent' },
  });

  const echo: ServiceDefinition['build'] = async (app) => {
    app.post('/echo', async (request) => ({
      principal: request.principal,
      request_id: request.id,
      length: JSON.stringify(request.body).length,
    }));
    return {};
  };

  it('verifies no principal, makes its own request ids and takes its body limit, where a service does not', async () => {
    // Proves the edge option: a request with no principal reaches the route (a service answers 401), an
    // X-Request-Id from the internet is not believed (a service keeps the gateway's), the limit is the edge's.
    const edge = await startService(
      { name: 'edge', migrations: [], edge: () => ({ bodyLimitBytes: 64 }), build: echo },
      context('edge_probe'),
    );
    const service = await startService(
      { name: 'behind', migrations: [], build: echo },
      context('behind_probe'),
    );
    try {
      const ask = (app: typeof edge.app, payload: object) =>
        app.inject({
          method: 'POST',
          url: '/echo',
          headers: { 'x-request-id': 'req_from_outside' },
          payload,
        });
      const atEdge = await ask(edge.app, { a: 1 });
      expect(atEdge.statusCode).toBe(200);
      expect(atEdge.json().principal).toBeNull();
      expect(atEdge.json().request_id).not.toBe('req_from_outside');
      expect((await ask(edge.app, { text: 'x'.repeat(100) })).statusCode).toBe(413);
      expect((await ask(service.app, { a: 1 })).statusCode).toBe(401);
      for (const url of ['/livez', '/readyz', '/health'])
        expect((await edge.app.inject({ url })).json()).toEqual({ status: 'ok', service: 'edge' });
    } finally {
      await edge.stop();
      await service.stop();
    }
  }, 60_000);
});
