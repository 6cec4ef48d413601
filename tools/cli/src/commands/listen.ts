// `pgw listen`: a test-mode webhook endpoint for this session only. It receives the deliveries on a local
// port (the all-in-one allows loopback targets: WEBHOOK_ALLOW_PRIVATE_TARGETS=1 is its default, contract
// §7), checks each signature, forwards the original bytes and X-Signature to --forward-to, answers the
// gateway with the forward's status (so a failing app gets the usual retries), and deletes the endpoint
// when it is stopped (SIGINT, SIGTERM).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constructEvent, SignatureVerificationError } from '@pgw/sdk';
import {
  ADMIN_HELP,
  ADMIN_OPTIONS,
  adminOf,
  integerFlag,
  parse,
  tenantOf,
  UsageError,
  type Command,
  type Io,
} from '../cli';

const OPTIONS = {
  ...ADMIN_OPTIONS,
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  port: { type: 'string' },
} as const;

// The gateway gives up on an attempt after 10 s (contract §7): the forward must answer before that.
const FORWARD_TIMEOUT_MS = 9_000;
// An event body is a resource and its envelope, a few KiB; a larger request is not the gateway's.
const BODY_BYTES_MAX = 1024 * 1024;
// Deleting the endpoint at exit: bounded, so a gateway that went away does not hold the terminal.
const STOP_TIMEOUT_MS = 5_000;

export const listen: Command = {
  summary: 'receive this session’s webhooks on a local port and forward them (--forward-to URL)',
  usage: `pgw listen [--forward-to http://localhost:3000/webhooks] [--events charge.paid,pix.paid…] [--port N]

Registers a test-mode webhook endpoint on a local port for as long as it runs (every event, or the kinds
in --events), prints its signing secret (whsec_…: verify the forwarded deliveries with it) and a line per
delivery: the event's type and id, and the status your app answered. Each delivery is checked against the
secret and forwarded with its original body and X-Signature header. Ctrl-C deletes the endpoint.
  --forward-to URL        where to forward (without it, deliveries are printed and answered 200)
  --events LIST           comma-separated event kinds (default every kind)
  --port N                the local port to receive on (default: any free one)

${ADMIN_HELP}`,

  async run(argv: string[], io: Io) {
    const { values } = parse(argv, OPTIONS, 0);
    const forwardTo = values['forward-to'];
    if (forwardTo !== undefined && !/^https?:\/\//.test(forwardTo))
      throw new UsageError('--forward-to is an http:// or https:// URL');
    const admin = adminOf(values, io);
    const tenantId = tenantOf(values, io);
    const port = values.port === undefined ? 0 : integerFlag('port', values.port);
    const events = values.events
      ?.split(',')
      .map((kind) => kind.trim())
      .filter((kind) => kind !== '');

    let secret = '';
    const server = createServer((request, response) => {
      void receive(request, response, secret, forwardTo, io);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    let endpoint;
    try {
      endpoint = await admin.createWebhookEndpoint(tenantId, {
        url,
        ...(events === undefined ? {} : { events }),
      });
    } catch (error) {
      server.close();
      throw error;
    }
    secret = endpoint.secret;
    io.out(
      `Ready: webhook endpoint ${endpoint.id} (test mode, ${endpoint.events.join(',')}) receives on ${url}${forwardTo === undefined ? '' : `, forwarding to ${forwardTo}`}\n`,
    );
    io.out(`Signing secret: ${endpoint.secret}\n`);

    await new Promise<void>((resolve) => {
      const stop = (signal: NodeJS.Signals) => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        io.out(`${signal}: deleting webhook endpoint ${endpoint.id}\n`);
        server.close();
        server.closeAllConnections();
        const timeout = new Promise<void>((done) => setTimeout(done, STOP_TIMEOUT_MS).unref());
        void Promise.race([
          admin.deleteWebhookEndpoint(endpoint.id).then(
            () => io.out(`Deleted ${endpoint.id}\n`),
            (error: unknown) =>
              io.err(
                `could not delete ${endpoint.id}: ${error instanceof Error ? error.message : String(error)}\n`,
              ),
          ),
          timeout.then(() =>
            io.err(`could not delete ${endpoint.id} within ${STOP_TIMEOUT_MS} ms\n`),
          ),
        ]).then(resolve);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  },
};

async function readBody(request: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of request) {
    bytes += (chunk as Buffer).length;
    if (bytes > BODY_BYTES_MAX) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function receive(
  request: IncomingMessage,
  response: ServerResponse,
  secret: string,
  forwardTo: string | undefined,
  io: Io,
): Promise<void> {
  const stamp = new Date().toISOString();
  const rawBody = await readBody(request);
  if (request.method !== 'POST' || rawBody === null) {
    response.writeHead(rawBody === null ? 413 : 405).end();
    return;
  }
  const signature = request.headers['x-signature'];
  let event;
  try {
    event = constructEvent(rawBody, signature, secret);
  } catch (error) {
    // Not from the gateway with this session's secret: not forwarded, so the port relays nothing else.
    const reason = error instanceof SignatureVerificationError ? error.reason : String(error);
    io.out(`${stamp}  refused: signature ${reason}\n`);
    response.writeHead(400).end();
    return;
  }
  if (forwardTo === undefined) {
    io.out(`${stamp}  ${event.type}  ${event.id}\n`);
    response.writeHead(200).end();
    return;
  }
  try {
    const forwarded = await fetch(forwardTo, {
      method: 'POST',
      headers: {
        'content-type': request.headers['content-type'] ?? 'application/json',
        'x-signature': String(signature),
        'user-agent': 'pgw-listen',
      },
      body: rawBody,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await forwarded.arrayBuffer();
    io.out(`${stamp}  ${event.type}  ${event.id}  -> ${forwarded.status}\n`);
    response.writeHead(forwarded.status).end();
  } catch (error) {
    io.out(
      `${stamp}  ${event.type}  ${event.id}  -> failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    response.writeHead(502).end();
  }
}
