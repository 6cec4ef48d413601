import { resolve } from 'node:path';
import { envInt, envOptionalSecret, envString } from '@pgw/platform-http';
import { reportBrokenInvariants } from '@pgw/platform-service';
import { startAllInOne } from './all-in-one';

async function main(): Promise<void> {
  // Every broken invariant of the seven services is logged and counted, under this process's name.
  reportBrokenInvariants('all-in-one');
  const env = process.env;
  const port = envInt(env, 'PORT', 8080);
  const dataDir = resolve(envString(env, 'DATA_DIR', './.data'));
  const adminToken = envOptionalSecret(env, 'ADMIN_TOKEN');
  const startedAtMs = Date.now();
  const system = await startAllInOne({
    dataDir,
    port,
    host: envString(env, 'HOST', '127.0.0.1'),
    // The distributed gateway's rule (envSecret): a token given must have at least 16 characters.
    ...(adminToken !== undefined ? { adminToken } : {}),
    demo: envString(env, 'DEMO', '1') === '1',
    env,
  });

  const lines = [
    '',
    'Payment gateway — all-in-one mode',
    `  API        ${system.url}/api/v1   (health: ${system.url}/api/v1/health)`,
    `  Operator   ${system.url}/admin/v1`,
    `  Data       ${dataDir}`,
    system.adminTokenGenerated
      ? `  ADMIN_TOKEN (generated) ${system.adminToken}`
      : '  ADMIN_TOKEN from the environment',
  ];
  if (system.demo !== null) {
    lines.push(`  Demo tenant ${system.demo.tenantId}, seller ${system.demo.sellerId}`);
    lines.push(`  Demo key    ${system.demo.apiKey}`);
  }
  lines.push(`  Ready in ${Date.now() - startedAtMs} ms`, '');
  process.stdout.write(`${lines.join('\n')}\n`);

  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`${signal}: stopping\n`);
    system.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`stop failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(
    `all-in-one failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
