// The alert rules an on-call engineer is paged by, checked before they ship: promtool accepts every rule
// file, the burn-rate alerts behave as tools/observability/*.rules.test.yaml says on made-up traffic, and
// every alert links to a runbook section that exists. promtool comes from Debian's `prometheus` package;
// where it is missing its tests are skipped with a line saying so, unless REQUIRE_PROMTOOL is set (.ci/run
// installs it and sets it): then they fail.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { setRunbook } from './generate';
import {
  isAlert,
  OBSERVABILITY_DIR,
  RULES_DIR,
  ruleFiles,
  runbookLinkFiles,
  runbookLinks,
  RUNBOOK_URL_DEFAULT,
  runbookUrl,
  runbookUrlProblem,
  withRunbook,
} from './rules';

const ROOT = join(__dirname, '..', '..');
const TESTS = readdirSync(__dirname)
  .filter((f) => f.endsWith('.rules.test.yaml'))
  .sort();
const promtoolFound = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0;
const promtoolRuns = promtoolFound || process.env['REQUIRE_PROMTOOL'] !== undefined;
const SKIPPED = promtoolRuns
  ? ''
  : ' — SKIPPED: promtool is not installed (apt-get install prometheus)';

function promtool(args: string[], cwd = ROOT): { ok: boolean; output: string } {
  const r = spawnSync('promtool', args, { cwd, encoding: 'utf8', timeout: 60_000 });
  if (r.error !== undefined) return { ok: false, output: `promtool: ${r.error.message}` };
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

/** GitHub's anchor of a heading: lower case, punctuation but `-` dropped, spaces as `-`. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

describe('Prometheus rules (deploy/observability/rules)', () => {
  const files = ruleFiles();
  const alerts = files.flatMap((f) => f.groups.flatMap((g) => g.rules.filter(isAlert)));

  (promtoolRuns ? it : it.skip).each(files.map((f) => f.file))(
    `promtool check rules accepts %s${SKIPPED}`,
    (file) => {
      // --lint-fatal: a rule written twice (same name and labels) fails too.
      const { ok, output } = promtool(['check', 'rules', '--lint-fatal', join(RULES_DIR, file)]);
      expect([ok, output]).toEqual([true, expect.stringContaining('SUCCESS')]);
    },
  );

  (promtoolRuns ? it : it.skip).each(TESTS)(
    `promtool test rules passes tools/observability/%s${SKIPPED}`,
    (test) => {
      const { ok, output } = promtool(['test', 'rules', test], __dirname);
      expect([ok, output]).toEqual([true, expect.stringContaining('SUCCESS')]);
    },
  );

  (promtoolRuns ? it : it.skip)(
    `promtool check rules does reject a broken expression and a bad duration, so the checks above can fail${SKIPPED}`,
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'pgw-rules-'));
      try {
        const broken = join(dir, 'broken.rules.yaml');
        writeFileSync(
          broken,
          stringify({
            groups: [
              {
                name: 'g',
                rules: [
                  { alert: 'A', expr: 'sum(rate(x[5m])' },
                  { alert: 'B', expr: 'up == 0', for: 'five minutes' },
                ],
              },
            ],
          }),
        );
        const { ok, output } = promtool(['check', 'rules', broken]);
        expect(ok).toBe(false);
        expect(output).toMatch(/FAILED/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  (promtoolRuns ? it : it.skip)(
    `promtool check config accepts compose's prometheus.yml, and its rule_files glob loads every rule file${SKIPPED}`,
    () => {
      // The glob names the container's path (docker-compose.yml mounts deploy/observability/rules there): point it here.
      const config = parse(readFileSync(join(OBSERVABILITY_DIR, 'prometheus.yml'), 'utf8')) as {
        rule_files: string[];
      };
      const dir = mkdtempSync(join(tmpdir(), 'pgw-prometheus-'));
      try {
        const local = join(dir, 'prometheus.yml');
        writeFileSync(
          local,
          stringify({
            ...config,
            rule_files: config.rule_files.map((glob) => join(RULES_DIR, glob.split('/').pop()!)),
          }),
        );
        const { ok, output } = promtool(['check', 'config', local]);
        expect([ok, output]).toEqual([true, expect.stringContaining('SUCCESS')]);
        for (const f of files) expect(output).toContain(`${f.file}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('every rule file has a unit test file that loads it', () => {
    // Proves no alert ships whose behaviour nobody tried on made-up traffic.
    const tested = new Set(
      TESTS.flatMap((t) =>
        (
          readFileSync(join(__dirname, t), 'utf8').match(
            /deploy\/observability\/rules\/[\w.-]+\.rules\.yaml/g,
          ) ?? []
        ).map((p) => p.split('/').pop()),
      ),
    );
    expect(files.map((f) => f.file).filter((f) => !tested.has(f))).toEqual([]);
  });

  it('every alert has a severity (page or ticket), a summary, a description and a runbook_url to a section of docs/runbook.md', () => {
    const runbook = readFileSync(join(ROOT, 'docs', 'runbook.md'), 'utf8');
    const anchors = new Set([...runbook.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)));
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) {
      const url = alert.annotations?.['runbook_url'] ?? '';
      const [base, fragment] = url.split('#');
      expect([alert.alert, alert.labels?.['severity']]).toEqual([
        alert.alert,
        expect.stringMatching(/^(page|ticket)$/),
      ]);
      expect([
        alert.alert,
        Boolean(alert.annotations?.['summary']),
        Boolean(alert.annotations?.['description']),
      ]).toEqual([alert.alert, true, true]);
      expect([alert.alert, base, anchors.has(fragment ?? '')]).toEqual([
        alert.alert,
        runbookUrl(),
        true,
      ]);
    }
  });

  it("every runbook link, in the rules and in their tests' expected annotations, names a section of docs/runbook.md in one runbook that is no placeholder", () => {
    // Proves an on-call engineer's link leads to the section of the alert, and the promtool tests expect that link.
    const runbook = readFileSync(join(ROOT, 'docs', 'runbook.md'), 'utf8');
    const anchors = new Set([...runbook.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)));
    const files = runbookLinkFiles();
    expect(files.map((f) => f.split('/').pop())).toEqual(
      expect.arrayContaining(['slo.rules.yaml', 'platform.rules.yaml', 'slo.rules.test.yaml']),
    );
    const links = files.flatMap((f) => runbookLinks(readFileSync(f, 'utf8')));
    // Every runbook_url line is a link of that form (none the pattern would miss).
    const lines = files.flatMap((f) => readFileSync(f, 'utf8').match(/runbook_url:/g) ?? []);
    expect(links).toHaveLength(lines.length);
    expect(links.filter((l) => !anchors.has(l.section))).toEqual([]);
    expect(new Set(links.map((l) => l.runbook))).toEqual(new Set([runbookUrl()]));
    expect(runbookUrlProblem(runbookUrl())).toBeUndefined();
    expect(runbookUrl()).not.toMatch(/example\.(com|org|net)/);
  });

  it('--runbook-url points every link of the rules and their tests into the given runbook, each at its own section', () => {
    // Proves a deployer's one setting reaches every alert, with the sections unchanged, and a bad URL is refused.
    const dir = mkdtempSync(join(tmpdir(), 'pgw-runbook-'));
    try {
      const copies = runbookLinkFiles().map((f, i) => {
        const copy = join(dir, `${i}-${f.split('/').pop()!}`);
        writeFileSync(copy, readFileSync(f, 'utf8'));
        return copy;
      });
      const before = copies.flatMap((f) => runbookLinks(readFileSync(f, 'utf8')));
      const url = 'https://git.acme.test/payments/pgw/-/blob/main/docs/runbook.md';
      expect(setRunbook(url, copies)).toHaveLength(copies.length);
      const after = copies.flatMap((f) => runbookLinks(readFileSync(f, 'utf8')));
      expect(after).toEqual(before.map((l) => ({ runbook: url, section: l.section })));
      // The files stay valid YAML whose annotations are the new links.
      const rules = parse(
        readFileSync(
          copies.find((f) => f.endsWith('slo.rules.yaml'))!,
          'utf8',
        ),
      );
      expect(JSON.stringify(rules)).toContain(`"runbook_url":"${url}#chargeerrorbudgetburn"`);
      // Back to the default: the same text as before, byte for byte.
      setRunbook(RUNBOOK_URL_DEFAULT, copies);
      expect(copies.map((f) => readFileSync(f, 'utf8'))).toEqual(
        copies.map((_, i) =>
          withRunbook(readFileSync(runbookLinkFiles()[i]!, 'utf8'), RUNBOOK_URL_DEFAULT),
        ),
      );
      for (const bad of ['git.acme.test/runbook.md', 'https://h/runbook.md#x', 'https://h/a b'])
        expect(() => setRunbook(bad, copies)).toThrow(/runbook URL/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the runbook anchor is computed as GitHub computes it, so a wrong link is caught', () => {
    expect(anchor('ChargeErrorBudgetBurn')).toBe('chargeerrorbudgetburn');
    expect(anchor('When Kafka or PostgreSQL is down')).toBe('when-kafka-or-postgresql-is-down');
    expect(anchor('Overload: 503 with Retry-After (admission control)')).toBe(
      'overload-503-with-retry-after-admission-control',
    );
  });
});
