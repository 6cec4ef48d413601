// The sandbox CLI (tools/cli, `npx pgw`) against the all-in-one, run as a user runs it: a child process of
// bin/pgw.js with only the environment it needs (its own config directory). login keeps a test key 0600
// and refuses a live one; charges create tokenizes a test card and prints the paid charge without the
// card number; trigger pix.paid moves a Pix charge to paid through the operator simulation; listen
// receives a signed delivery on a local port, forwards it untouched, and deletes its endpoint on SIGINT.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constructEvent, Gateway } from '@pgw/sdk';
import { childEnv, waitFor } from '@pgw/testing';
import { startAllInOne, type AllInOne } from './all-in-one';
import { client } from './e2e.scenarios';

const PGW = join(__dirname, '..', '..', '..', 'tools', 'cli', 'bin', 'pgw.js');
// Not the card the CLI's help names as an example, so that finding it in an output means it leaked.
const CARD = '5555555555554444';

let system: AllInOne;
let configHome: string;
const admin = (method: string, path: string, body?: unknown) =>
  client({
    url: system.url,
    adminToken: system.adminToken,
    tenantId: system.demo!.tenantId,
    apiKey: system.demo!.apiKey,
  }).admin(method, path, body);
const configFile = () => join(configHome, 'pgw', 'config.json');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts `pgw …` in its own process; asynchronous, so the all-in-one of this process keeps answering. */
function start(args: string[]): { child: ChildProcess; output: () => Run; exited: Promise<Run> } {
  const child = spawn(process.execPath, [PGW, ...args], {
    env: childEnv({ XDG_CONFIG_HOME: configHome }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Run>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, output: () => ({ code: child.exitCode, stdout, stderr }), exited };
}

const pgw = (...args: string[]) => start(args).exited;

beforeAll(async () => {
  configHome = mkdtempSync(join(tmpdir(), 'pgw-cli-'));
  system = await startAllInOne({
    dataDir: null,
    port: 0,
    demo: true,
    log: { level: 'silent' },
    env: { ...process.env },
  });
  if (system.demo === null) throw new Error('the demo was not provisioned');
}, 120_000);

afterAll(async () => {
  await system?.stop();
  rmSync(configHome, { recursive: true, force: true });
});

describe('pgw against the all-in-one', () => {
  it('login refuses a live key and an unknown one, then keeps the test key 0600 without printing it', async () => {
    // Proves the sandbox never stores a live key, that a key is checked before it is kept, and the file's mode.
    const live = await pgw(
      'login',
      '--api-key',
      'sk_live_0123456789abcdefghijklmn',
      '--base-url',
      system.url,
    );
    expect(live.code).toBe(1);
    expect(live.stderr).toContain('a live key (sk_live_…) is refused');
    expect(() => statSync(configFile())).toThrow();

    const unknown = await pgw(
      'login',
      '--api-key',
      'sk_test_00000000000000000000000000000000',
      '--base-url',
      system.url,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /error: .*\(HTTP 401, authentication_error\/api_key_invalid, request_id req_[A-Za-z0-9_-]+\)/,
    );
    expect(() => statSync(configFile())).toThrow();

    const { apiKey, tenantId } = system.demo!;
    const ok = await pgw(
      'login',
      '--api-key',
      apiKey,
      '--base-url',
      system.url,
      '--admin-token',
      system.adminToken,
      '--tenant',
      tenantId,
    );
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    expect(ok.stdout).toContain(`sk_test_…${apiKey.slice(-4)}`);
    expect(ok.stdout).not.toContain(apiKey);
    expect(ok.stdout).not.toContain(system.adminToken);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual({
      api_key: apiKey,
      base_url: system.url,
      admin_token: system.adminToken,
      tenant_id: tenantId,
    });
  });

  it('charges create tokenizes a test card and prints the paid charge, never the card number', async () => {
    // Proves the card path through the SDK from the saved config, the JSON a script reads and the table a person reads.
    const created = await pgw(
      'charges',
      'create',
      '--amount',
      '1000',
      '--card',
      CARD,
      '--installments',
      '3',
    );
    expect([created.code, created.stderr]).toEqual([0, '']);
    const charge = JSON.parse(created.stdout);
    expect(charge).toMatchObject({
      object: 'charge',
      status: 'paid',
      amount_cents: 1000,
      payment_method: 'credit_card',
      installments: 3,
      captured: true,
    });
    expect(created.stdout).not.toContain(CARD);
    expect(readFileSync(configFile(), 'utf8')).not.toContain(CARD);

    const table = await pgw('charges', 'get', charge.id, '--format', 'table');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^id\\s+${charge.id}$`, 'm'));
    expect(table.stdout).toMatch(/^status\s+paid$/m);

    const missing = await pgw('charges', 'get', 'ch_doesnotexist');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /\(HTTP 404, not_found_error\/resource_not_found, request_id req_/,
    );
    const usage = await pgw('charges', 'create', '--amount', 'ten', '--card', CARD);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('--amount must be a positive integer');
    expect(usage.stderr).not.toContain(CARD);
  });

  it('trigger pix.paid creates a Pix charge and pays it through the operator simulation', async () => {
    // Proves the trigger reaches contract §5's simulation: the charge is paid as the API reads it back.
    const run = await pgw('trigger', 'pix.paid', '--amount', '2500');
    expect([run.code, run.stderr]).toEqual([0, '']);
    const printed = JSON.parse(run.stdout);
    expect(printed).toMatchObject({
      id: expect.stringMatching(/^ch_/),
      status: 'paid',
      payment_method: 'pix',
      amount_cents: 2500,
    });
    const read = await new Gateway({
      apiKey: system.demo!.apiKey,
      baseUrl: system.url,
    }).charges.retrieve(printed.id);
    expect(read).toMatchObject({ status: 'paid', payment_method: 'pix' });

    const withoutToken = await pgw(
      'trigger',
      'pix.paid',
      '--admin-token',
      'adm_wrong_token_0000000000',
    );
    expect(withoutToken.code).toBe(1);
    expect(withoutToken.stderr).toMatch(/HTTP 401/);
  });

  describe('listen', () => {
    let app: Server;
    const received: Array<{
      rawBody: Buffer;
      signature: string | undefined;
      path: string | undefined;
    }> = [];

    beforeAll(async () => {
      // The developer's app that listen forwards to, and that answers 200.
      app = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          received.push({
            rawBody: Buffer.concat(chunks),
            signature: req.headers['x-signature'] as string | undefined,
            path: req.url,
          });
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise((resolve) => app.close(resolve)));

    const eventOf = (delivery: { rawBody: Buffer }) =>
      JSON.parse(delivery.rawBody.toString('utf8')) as {
        id: string;
        type: string;
        data: { object: { id: string } };
      };

    it('receives a signed delivery on a local port, forwards it untouched, and deletes its endpoint on SIGINT', async () => {
      // Proves the session endpoint end to end: registered, delivered to by the webhooks service, checked,
      // forwarded with the bytes and X-Signature that verify against its secret, and gone after Ctrl-C.
      const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
      const listen = start(['listen', '--forward-to', appUrl, '--events', 'charge.paid']);
      try {
        const ready = await waitFor(
          () =>
            /Ready: webhook endpoint (we_[A-Za-z0-9]+).*\nSigning secret: (whsec_[A-Za-z0-9]+)/.exec(
              listen.output().stdout,
            ) ?? undefined,
          30_000,
          'pgw listen to be ready',
        );
        const [, endpointId, secret] = ready;

        const triggered = await pgw('trigger', 'charge.paid', '--amount', '3100');
        expect(triggered.code).toBe(0);
        const chargeId: string = JSON.parse(triggered.stdout).id;

        const delivery = await waitFor(
          () => received.find((d) => eventOf(d).data.object.id === chargeId),
          15_000,
          'the forwarded charge.paid',
        );
        expect(delivery.path).toBe('/hooks');
        const event = constructEvent(delivery.rawBody, delivery.signature, secret);
        expect(event).toMatchObject({
          type: 'charge.paid',
          livemode: false,
          data: { object: { id: chargeId, status: 'paid' } },
        });
        await waitFor(
          () =>
            listen.output().stdout.includes(`charge.paid  ${event.id}  -> 200`) ? true : undefined,
          10_000,
          'the printed line of the delivery',
        );

        // The operator's log of the endpoint shows the delivery as succeeded.
        const logs = await pgw('logs', endpointId, '--once');
        expect(logs.code).toBe(0);
        expect(logs.stdout).toMatch(
          new RegExp(`succeeded\\s+charge\\.paid\\s+${event.id}\\s+\\S+\\s+attempts 1\\s+last 200`),
        );

        listen.child.kill('SIGINT');
        const ended = await listen.exited;
        expect([ended.code, ended.stderr]).toEqual([0, '']);
        expect(ended.stdout).toContain(`Deleted ${endpointId}`);
        expect((await admin('DELETE', `/admin/v1/webhook-endpoints/${endpointId}`)).status).toBe(
          404,
        );

        // Nothing more is delivered to the deleted endpoint: a control endpoint gets the next charge.paid, the session's does not.
        const control = await admin(
          'POST',
          `/admin/v1/tenants/${system.demo!.tenantId}/webhook-endpoints`,
          { url: `${appUrl.replace('/hooks', '/control')}`, events: ['charge.paid'] },
        );
        expect(control.status).toBe(201);
        const next = JSON.parse((await pgw('trigger', 'charge.paid', '--amount', '3200')).stdout)
          .id as string;
        const controlled = await waitFor(
          () => received.find((d) => d.path === '/control' && eventOf(d).data.object.id === next),
          15_000,
          'the control delivery',
        );
        const after = await admin(
          'GET',
          `/admin/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`,
        );
        const sessionEvents = after.body.data.map((d: { event_id: string }) => d.event_id);
        expect(sessionEvents).toContain(event.id);
        expect(sessionEvents).not.toContain(eventOf(controlled).id);
      } finally {
        if (listen.child.exitCode === null) listen.child.kill('SIGKILL');
      }
    }, 90_000);
  });
});
