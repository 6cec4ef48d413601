import type { Db } from '@pgw/platform-db';
import type { Keyring } from '@pgw/vault-domain/keyring';
import { rowAad } from './token.repository';

export interface RewrapOptions {
  batchSizeMax?: number;
  /** Bounds one run; run again to continue (the count returned tells whether there may be more). */
  batchesMax?: number;
}

interface WrappedRow {
  id: string;
  tenant_id: string;
  livemode: boolean;
  kek_id: string;
  wrapped_key: Buffer | Uint8Array;
  sealed: Buffer | Uint8Array;
}

/**
 * After a KEK rotation: re-wraps the data key of every row still under a retired KEK with the active one.
 * Only the 61-byte wrapped key changes; the sealed data is untouched. Rows are taken in batches with
 * SKIP LOCKED, so replicas (or a rerun) can share the work. This is a maintenance pass over every
 * tenant, the one query of the vault that is not scoped to a tenant and environment. Returns the rows
 * re-wrapped.
 */
export async function rewrapTokens(
  db: Db,
  keyring: Keyring,
  options: RewrapOptions = {},
): Promise<number> {
  const batchSizeMax = options.batchSizeMax ?? 500;
  const batchesMax = options.batchesMax ?? 1_000;
  let total = 0;
  for (let batch = 0; batch < batchesMax; batch++) {
    const done = await db.tx(async (trx) => {
      const rows = await trx('tokens')
        .whereNot({ kek_id: keyring.activeKekId })
        .orderBy('id')
        .limit(batchSizeMax)
        .forUpdate()
        .skipLocked()
        .select<WrappedRow[]>('id', 'tenant_id', 'livemode', 'kek_id', 'wrapped_key', 'sealed');
      for (const row of rows) {
        const aad = rowAad(row.id, { tenantId: row.tenant_id, livemode: row.livemode });
        const next = keyring.rewrap(
          {
            kekId: row.kek_id,
            wrappedKey: Buffer.from(row.wrapped_key),
            ciphertext: Buffer.from(row.sealed),
          },
          aad,
        );
        await trx('tokens')
          .where({ id: row.id })
          .update({ kek_id: next.kekId, wrapped_key: next.wrappedKey });
      }
      return rows.length;
    });
    total += done;
    if (done < batchSizeMax) break;
  }
  return total;
}
