import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@pgw/testing';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requireRegistry, spawnLogged, startCluster } from './cluster';

describe('startCluster', () => {
  it('refuses at once, saying what to start, when no schema registry answers', async () => {
    // The services would start healthy without one, and every relay would then fail while the run waits.
    const url = 'http://127.0.0.1:1/apis/ccompat/v7';
    await expect(
      startCluster({
        logDir: '/tmp/pgw-cluster-spec',
        kafkaBrokers: '127.0.0.1:1',
        env: { SCHEMA_REGISTRY_URL: url },
      }),
    ).rejects.toThrow(`no schema registry at ${url}`);
  });

  it('waits for a registry that is up but slow to answer, and refuses one that keeps failing', async () => {
    const asked: string[] = [];
    let answers = [503, 'hang', 200] as Array<number | 'hang'>;
    const server = createServer((req, res) => {
      asked.push(req.url ?? '');
      const next = answers.shift() ?? 500;
      if (next !== 'hang') res.writeHead(next).end('[]');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/apis/ccompat/v7`;
    try {
      await requireRegistry(url, { waitMs: 5000, timeoutMs: 300 });
      expect(asked).toEqual(Array(3).fill('/apis/ccompat/v7/schemas/types'));
      answers = [];
      await expect(requireRegistry(url, { waitMs: 1000, timeoutMs: 300 })).rejects.toThrow(
        `no schema registry at ${url} (answered 500)`,
      );
      answers = [404];
      asked.length = 0;
      await expect(requireRegistry(url, { waitMs: 5000, timeoutMs: 300 })).rejects.toThrow(
        'answered 404',
      );
      expect(asked).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('spawnLogged', () => {
  it("creates the log's directory, and the child's output lands in its log", async () => {
    // A fresh clone has no bench-results/logs: the all-in-one section crashed there and left its child running.
    const dir = mkdtempSync(join(tmpdir(), 'pgw-spawn-logged-'));
    try {
      const log = join(dir, 'not', 'yet', 'child.log');
      const child = spawnLogged(['-e', "console.log('out'); console.error('err')"], {}, log);
      await new Promise((resolve) => child.once('close', resolve));
      // The file stream ends after the child's pipes close: its last write may still be on its way.
      const lines = await waitFor(
        () => {
          const got = readFileSync(log, 'utf8').split('\n').sort();
          return got.length === 3 ? got : undefined;
        },
        5_000,
        'both lines in the log',
      );
      expect(lines).toEqual(['', 'err', 'out']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
