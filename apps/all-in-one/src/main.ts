import { resolve } from 'node:path';
import { Type } from '@sinclair/typebox';
import { readEnv } from '@pgw/platform-http';
import { reportBrokenInvariants } from '@pgw/platform-service';
import { startAllInOne } from './all-in-one';

/** What `npm start` reads, once (contract §1); each service's own variables are read by the service. */
const AllInOneEnv = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65_535, default: 8080 }),
  HOST: Type.String({ default: '127.0.0.1' }),
  DATA_DIR: Type.String({ default: './.data' }),
  /** The distributed gateway's rule: a token given has at least 16 characters; none: one is generated. */
  ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  DEMO: Type.Boolean({ default: true }),
});

async function main(): Promise<void> {
  // Every broken invariant of the seven services is logged and counted, under this process's name.
  reportBrokenInvariants('all-in-one');
  const env = process.env;
  const vars = readEnv(AllInOneEnv, env);
  const dataDir = resolve(vars.DATA_DIR);
  const startedAtMs = Date.now();
  const system = await startAllInOne({
    dataDir,
    port: vars.PORT,
    host: vars.HOST,
    ...(vars.ADMIN_TOKEN !== undefined ? { adminToken: vars.ADMIN_TOKEN } : {}),
    demo: vars.DEMO,
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
