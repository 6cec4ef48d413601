import { createPgDb } from '@pgw/platform-db';
import { readEnv } from '@pgw/platform-http';
import { MigrateEnv } from '@pgw/platform-service';
import { vaultKeysFromEnv } from './config';
import { rewrapTokens } from './data/rewrap';

// `tsx apps/vault/src/rewrap.main.ts` with the vault's environment, after a KEK rotation (README.md):
// re-wraps every row's data key under VAULT_KEK, so the retired KEK can then be dropped.
async function main(): Promise<void> {
  const keys = vaultKeysFromEnv(process.env);
  const db = createPgDb({ url: readEnv(MigrateEnv, process.env).DATABASE_URL, schema: 'vault' });
  try {
    const count = await rewrapTokens(db, keys.keyring);
    process.stdout.write(`re-wrapped ${count} data keys under ${keys.keyring.activeKekId}\n`);
  } finally {
    await db.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`rewrap failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
