import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';

// A PSP made of the BCB OpenAPI itself: Prism (@stoplight/prism-cli) mocks spec/openapi.yaml and
// validates every request against it, and a recording front in mutual TLS stands where a PSP's gateway
// stands. The front issues OAuth2 tokens (the token endpoint is each PSP's own, not part of the
// standard), forwards the API Pix calls to Prism, and keeps Prism's verdict on each request: the
// `sl-violations` header, whose entries located in `request` are the standard's objections to what the
// adapter sent.
//
// Prism runs in its default mode rather than `--errors`: both refuse an invalid request in the same way
// (a 4xx carrying the same `sl-violations`), but `--errors` also turns every answer whose example breaks
// the spec's own schema into a 500, and several of the standard's examples do (spec/README.md). In the
// default mode those examples come back as documented, so the adapter is also shown reading them.

const PRISM_START_MS_MAX = 20_000;
const REPO_ROOT = join(__dirname, '..', '..', '..', '..', '..', '..');
const PRISM_CLI = join(REPO_ROOT, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
export const SPEC_FILE = join(__dirname, '..', 'spec', 'openapi.yaml');

export interface Violation {
  location: string[];
  code: string;
  message: string;
}

export interface Exchange {
  method: string;
  /** The path as the standard names it (after the PSP's `/api/v2` root), with its query. */
  path: string;
  status: number;
  clientCertificate: string;
  requestViolations: Violation[];
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export class PrismPsp {
  readonly exchanges: Exchange[] = [];
  private prism: ChildProcess | null = null;
  private prismPort = 0;
  private front: Server | null = null;

  constructor(private readonly tls: { cert: Buffer; key: Buffer; ca: Buffer }) {}

  async start(): Promise<{ baseUrl: string; tokenUrl: string }> {
    this.prismPort = await freePort();
    const prism = spawn(
      process.execPath,
      [PRISM_CLI, 'mock', '-h', '127.0.0.1', '-p', String(this.prismPort), SPEC_FILE],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.prism = prism;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `prism did not start within ${PRISM_START_MS_MAX} ms:\n${output.slice(-2000)}`,
            ),
          ),
        PRISM_START_MS_MAX,
      );
      const read = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('Prism is listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      prism.stdout?.on('data', read);
      prism.stderr?.on('data', read);
      prism.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`prism exited with ${code}:\n${output.slice(-2000)}`));
      });
    });
    // Keep draining its log so that a full pipe never stalls it.
    prism.stdout?.resume();
    prism.stderr?.resume();

    const front = createServer(
      { ...this.tls, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks);
          const clientCertificate = String(
            (req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '',
          );
          if (req.url === '/oauth/token') {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(
              JSON.stringify({
                access_token: randomBytes(24).toString('base64url'),
                token_type: 'Bearer',
                expires_in: 3600,
              }),
            );
            return;
          }
          const path = (req.url ?? '/').replace(/^\/api\/v2/, '');
          const headers: Record<string, string> = {};
          for (const name of ['authorization', 'content-type', 'accept']) {
            const value = req.headers[name];
            if (typeof value === 'string') headers[name] = value;
          }
          const forward = httpRequest(
            { host: '127.0.0.1', port: this.prismPort, method: req.method, path, headers },
            (answer) => {
              const answerChunks: Buffer[] = [];
              answer.on('data', (c: Buffer) => answerChunks.push(c));
              answer.on('end', () => {
                const raw = answer.headers['sl-violations'];
                const violations: Violation[] =
                  typeof raw === 'string' ? (JSON.parse(raw) as Violation[]) : [];
                this.exchanges.push({
                  method: req.method ?? '',
                  path,
                  status: answer.statusCode ?? 0,
                  clientCertificate,
                  requestViolations: violations.filter((v) => v.location[0] === 'request'),
                });
                res.writeHead(answer.statusCode ?? 502, {
                  'content-type': String(answer.headers['content-type'] ?? 'application/json'),
                });
                res.end(Buffer.concat(answerChunks));
              });
            },
          );
          forward.on('error', () => res.writeHead(502).end());
          forward.end(body.length > 0 ? body : undefined);
        });
      },
    );
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    this.front = front;
    const origin = `https://127.0.0.1:${(front.address() as { port: number }).port}`;
    return { baseUrl: `${origin}/api/v2`, tokenUrl: `${origin}/oauth/token` };
  }

  async stop(): Promise<void> {
    const front = this.front;
    if (front !== null) {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    }
    const prism = this.prism;
    if (prism !== null && prism.exitCode === null) {
      prism.removeAllListeners('exit'); // the start-up listener would report this exit as a failure
      const exited = new Promise<void>((resolve) => prism.once('exit', () => resolve()));
      prism.kill('SIGTERM');
      await exited;
    }
  }
}
