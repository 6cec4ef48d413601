import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhook } from './signature';

// The receiver example in README.md is what integrators copy: this runs that very block, as a real
// HTTP server on 127.0.0.1, against headers made by signWebhook (what the webhooks service sends).

const README = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

function receiverExample(markdown: string): string {
  const match =
    /<!-- receiver-example:start -->\n```js\n([\s\S]*?)```\n<!-- receiver-example:end -->/.exec(
      markdown,
    );
  if (match?.[1] === undefined) throw new Error('README has no receiver example block');
  return match[1];
}

interface Example {
  verifySignature(
    rawBody: Buffer,
    header: unknown,
    secrets: string[],
    nowSeconds?: number,
  ): boolean;
  createReceiver(
    secrets: string[],
    handle: (event: { id: string; type: string }) => Promise<void>,
  ): Server;
}

function post(port: number, body: string, header: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', 'x-signature': header },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the README receiver example', () => {
  const SECRET = 'whsec_readme_0123456789abcdefghijkl';
  const body = JSON.stringify({
    id: 'evt_readme1',
    object: 'event',
    type: 'charge.paid',
    data: { object: { id: 'ch_1' } },
  });
  let example: Example;
  let server: Server;
  let port: number;
  const handled: string[] = [];

  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'webhook-readme-')), 'webhook-receiver.js');
    writeFileSync(file, receiverExample(README));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    example = require(file) as Example;
    server = example.createReceiver([SECRET], async (event) => {
      handled.push(event.id);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('accepts a signed delivery once, answers 200 to its repeat without handling it again', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await post(port, body, signWebhook(SECRET, body, now))).toBe(200);
    expect(await post(port, body, signWebhook(SECRET, body, now))).toBe(200);
    expect(handled).toEqual(['evt_readme1']);
  });

  it('answers 400 to a tampered body, an old timestamp and another secret', async () => {
    const now = Math.floor(Date.now() / 1000);
    const tampered = body.replace('ch_1', 'ch_2');
    expect(await post(port, tampered, signWebhook(SECRET, body, now))).toBe(400);
    expect(await post(port, body, signWebhook(SECRET, body, now - 301))).toBe(400);
    expect(await post(port, body, signWebhook('whsec_someone_else_000000000000', body, now))).toBe(
      400,
    );
    expect(handled).toEqual(['evt_readme1']);
  });

  it('verifies exactly like verifyWebhook: rotation headers with two v1 values pass with either secret', () => {
    const raw = Buffer.from(body);
    const header = signWebhook(['whsec_new_000000000000000000', SECRET], raw, 1_772_000_000);
    expect(example.verifySignature(raw, header, [SECRET], 1_772_000_000)).toBe(true);
    expect(
      example.verifySignature(raw, header, ['whsec_new_000000000000000000'], 1_772_000_000),
    ).toBe(true);
    expect(example.verifySignature(raw, header, ['whsec_x'], 1_772_000_000)).toBe(false);
    expect(example.verifySignature(raw, header, [SECRET], 1_772_000_301)).toBe(false);
    expect(example.verifySignature(raw, undefined, [SECRET], 1_772_000_000)).toBe(false);
  });
});
