import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';

/** An OTLP/HTTP collector for specs: keeps the body of every trace export, whatever its encoding. */
export interface OtlpReceiver {
  url: string;
  traces: Buffer[];
  close(): void;
}

export async function otlpReceiver(): Promise<OtlpReceiver> {
  const traces: Buffer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') traces.push(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    traces,
    close: () => server.close(),
  };
}

export async function freePort(): Promise<number> {
  const server = createNetServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  server.close();
  return port;
}
