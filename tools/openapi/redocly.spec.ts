// Proves both committed OpenAPI documents pass Redocly's recommended rules with no error (issue 21): the
// real CLI, as an integrator's tooling would lint them. Warnings are allowed; errors fail CI.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');

it.each(['docs/openapi.json', 'docs/openapi-admin.json'])(
  '%s has no error under redocly lint with the recommended rules',
  async (file) => {
    const cli = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const run = await promisify(execFile)(
      process.execPath,
      [cli, 'lint', '--config', join(__dirname, 'redocly.yaml'), '--format', 'json', file],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    ).catch((error: { stdout: string; stderr: string }) => error);
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; severity: string; message: string }>;
    };
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
  },
  60_000,
);
