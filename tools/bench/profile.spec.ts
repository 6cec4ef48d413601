// The profile summary of `npm run bench -- --profile …`: a real `node --cpu-prof` profile of a child that spins
// in one function, then in another, read whole and over the window of each phase (monotonic clock).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarizeProfile } from './profile';

const CHILD = `
let x = 0;
function firstPhase(ms) { const end = Date.now() + ms; while (Date.now() < end) for (let i = 0; i < 1e5; i++) x += i % 7; }
function secondPhase(ms) { const end = Date.now() + ms; while (Date.now() < end) for (let i = 0; i < 1e5; i++) x += i % 5; }
const us = () => Number(process.hrtime.bigint() / 1000n);
const a = us(); firstPhase(300); const b = us(); secondPhase(300); const c = us();
process.stdout.write(JSON.stringify({ a, b, c, x: x > 0 }));
`;

const share = (summary: ReturnType<typeof summarizeProfile>, fn: string) =>
  summary.byFunction.find((f) => f.name.startsWith(`${fn} `))?.percent ?? 0;

describe('profile summary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pgw-profile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sums self time by function, and over a window counts only the samples taken inside it', () => {
    const out = execFileSync(
      process.execPath,
      ['--cpu-prof', `--cpu-prof-dir=${dir}`, '-e', CHILD],
      {
        encoding: 'utf8',
      },
    );
    const { a, b, c } = JSON.parse(out) as { a: number; b: number; c: number };
    const files = readdirSync(dir).map((f) => join(dir, f));
    expect(files).toHaveLength(1);

    const whole = summarizeProfile(files);
    expect(share(whole, 'firstPhase')).toBeGreaterThan(20);
    expect(share(whole, 'secondPhase')).toBeGreaterThan(20);

    const first = summarizeProfile(files, { startUs: a, endUs: b });
    expect(share(first, 'firstPhase')).toBeGreaterThan(80);
    expect(share(first, 'secondPhase')).toBe(0);
    expect(first.samples).toBeLessThan(whole.samples);

    const second = summarizeProfile(files, { startUs: b, endUs: c });
    expect(share(second, 'secondPhase')).toBeGreaterThan(80);
    expect(share(second, 'firstPhase')).toBe(0);
  });
});
