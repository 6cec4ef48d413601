import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpPeers } from './peers';

/** A peer that echoes what it got, counting the TCP connections it was reached on. */
async function echoServer(): Promise<{ server: Server; url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/empty') {
        response.writeHead(204).end();
        return;
      }
      response.writeHead(request.url === '/missing' ? 404 : 200, {
        'content-type': 'application/json',
      });
      response.end(
        JSON.stringify({
          method: request.method,
          url: request.url,
          contentType: request.headers['content-type'] ?? null,
          custom: request.headers['x-custom'] ?? null,
          body: body === '' ? null : (JSON.parse(body) as unknown),
        }),
      );
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, connections: () => connections };
}

describe('HttpPeers', () => {
  let peer: Awaited<ReturnType<typeof echoServer>>;
  beforeAll(async () => {
    peer = await echoServer();
  });
  afterAll(async () => {
    await new Promise((resolve) => peer.server.close(resolve));
  });

  it('sends the method, path, headers and JSON body, and reads the status and JSON answer', async () => {
    const peers = new HttpPeers({ echo: peer.url });
    const answer = await peers.request('echo', {
      method: 'POST',
      url: '/v1/things?limit=2',
      headers: { 'x-custom': 'yes' },
      body: { amount_cents: 100 },
    });
    expect(answer).toEqual({
      statusCode: 200,
      body: {
        method: 'POST',
        url: '/v1/things?limit=2',
        contentType: 'application/json',
        custom: 'yes',
        body: { amount_cents: 100 },
      },
    });
    const get = await peers.request('echo', { method: 'GET', url: '/missing' });
    expect(get).toMatchObject({ statusCode: 404, body: { contentType: null, body: null } });
    expect(await peers.request('echo', { method: 'DELETE', url: '/empty' })).toEqual({
      statusCode: 204,
      body: null,
    });
  });

  it('keeps its connections open: 100 calls one after another reach the peer on one or two', async () => {
    const before = peer.connections();
    const peers = new HttpPeers({ echo: peer.url });
    for (let i = 0; i < 100; i += 1) {
      const answer = await peers.request('echo', { method: 'POST', url: `/r/${i}`, body: { i } });
      expect(answer.statusCode).toBe(200);
    }
    // undici may open a second socket while the first is being handed back to its pool (fetch does too).
    expect(peer.connections() - before).toBeLessThanOrEqual(2);
  });

  it('refuses a service it has no URL for', async () => {
    await expect(new HttpPeers({}).request('vault', { method: 'GET', url: '/' })).rejects.toThrow(
      'no URL configured for service vault',
    );
  });
});
