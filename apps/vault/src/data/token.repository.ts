import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import type { Keyring, Sealed } from '@pgw/vault-domain/keyring';

export interface TokenRow {
  id: string;
  tenant_id: string;
  seller_id: string;
  livemode: boolean;
  card_ref: string;
  /** The rail whose card store holds card_ref (`provider:credentials` or `simulator`); null for tokens made before it was recorded. */
  card_rail: string | null;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  holder_name: string;
  fingerprint: string;
  kek_id: string;
  wrapped_key: Buffer;
  sealed: Buffer;
  created_at: Date;
}

/** What is sealed: everything the vault keeps about a card beyond its public facts. */
export interface SealedDetails {
  billing_address: Record<string, string> | null;
  metadata: Record<string, unknown> | null;
}

export interface Scope {
  tenantId: string;
  livemode: boolean;
}

/** The AAD that binds a sealed blob to its row: moved to another row, tenant or environment, it does not open. */
export const rowAad = (id: string, scope: Scope): string =>
  `tok|${id}|${scope.tenantId}|${scope.livemode ? 'live' : 'test'}`;

export function sealDetails(
  keyring: Keyring,
  id: string,
  scope: Scope,
  details: SealedDetails,
): Pick<TokenRow, 'kek_id' | 'wrapped_key' | 'sealed'> {
  const sealed = keyring.seal(Buffer.from(JSON.stringify(details), 'utf8'), rowAad(id, scope));
  return { kek_id: sealed.kekId, wrapped_key: sealed.wrappedKey, sealed: sealed.ciphertext };
}

export function openDetails(
  keyring: Keyring,
  row: Pick<TokenRow, 'id' | 'tenant_id' | 'livemode' | 'kek_id' | 'wrapped_key' | 'sealed'>,
): SealedDetails {
  const sealed: Sealed = {
    kekId: row.kek_id,
    wrappedKey: Buffer.from(row.wrapped_key),
    ciphertext: Buffer.from(row.sealed),
  };
  return JSON.parse(
    keyring
      .open(sealed, rowAad(row.id, { tenantId: row.tenant_id, livemode: row.livemode }))
      .toString('utf8'),
  ) as SealedDetails;
}

export async function insertToken(trx: Tx, row: TokenRow): Promise<void> {
  await trx('tokens').insert(row);
}

/** A token within the caller's tenant and environment (and seller, for a seller-scoped key), or undefined. */
export async function findToken(
  q: Knex | Tx,
  id: string,
  scope: Scope & { sellerId: string | null },
): Promise<TokenRow | undefined> {
  const query = q('tokens').where({ id, tenant_id: scope.tenantId, livemode: scope.livemode });
  if (scope.sellerId !== null) query.andWhere({ seller_id: scope.sellerId });
  return query.first<TokenRow | undefined>();
}
