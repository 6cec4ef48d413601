import type { Knex } from 'knex';
import type {
  BoletoProvider,
  CardProvider,
  LiveRails,
  PixProvider,
  RailChoice,
} from '@pgw/acquirer';
import type { Tx } from '@pgw/platform-db';

type Q = Knex | Tx;

interface LiveRailsRow {
  tenant_id: string;
  card_provider: string | null;
  card_credentials: string | null;
  pix_provider: string | null;
  pix_credentials: string | null;
  boleto_provider: string | null;
  boleto_credentials: string | null;
  updated_at: Date | string;
}

export interface StoredLiveRails {
  tenantId: string;
  rails: LiveRails;
  updatedAt: Date;
}

function choice<P extends string>(
  provider: string | null,
  credentials: string | null,
): RailChoice<P> | null {
  // The table's checks keep both set or both null; the route only writes providers it knows.
  return provider === null || credentials === null
    ? null
    : { provider: provider as P, credentials };
}

function fromRow(row: LiveRailsRow): StoredLiveRails {
  return {
    tenantId: row.tenant_id,
    rails: {
      card: choice<CardProvider>(row.card_provider, row.card_credentials),
      pix: choice<PixProvider>(row.pix_provider, row.pix_credentials),
      boleto: choice<BoletoProvider>(row.boleto_provider, row.boleto_credentials),
    },
    updatedAt: new Date(row.updated_at),
  };
}

export async function findLiveRails(q: Q, tenantId: string): Promise<StoredLiveRails | undefined> {
  const row = await q('live_rails')
    .where({ tenant_id: tenantId })
    .first<LiveRailsRow | undefined>();
  return row === undefined ? undefined : fromRow(row);
}

/** Every tenant whose live boletos go to a bank, for the file exchange job; bounded by the number of tenants. */
export async function boletoRails(q: Q): Promise<StoredLiveRails[]> {
  const rows = await q('live_rails')
    .whereNotNull('boleto_provider')
    .orderBy('tenant_id')
    .select<LiveRailsRow[]>('*');
  return rows.map(fromRow);
}

/** The Pix accounts tenants name (each once), for authenticating a PSP's notification; bounded by the number of tenants. */
export async function pixRailChoices(q: Q): Promise<RailChoice<PixProvider>[]> {
  const rows = await q('live_rails')
    .whereNotNull('pix_provider')
    .whereNotNull('pix_credentials')
    .distinct('pix_provider', 'pix_credentials')
    .orderBy(['pix_provider', 'pix_credentials']);
  return rows.map((r: { pix_provider: string; pix_credentials: string }) => ({
    provider: r.pix_provider as PixProvider,
    credentials: r.pix_credentials,
  }));
}

export async function saveLiveRails(
  trx: Tx,
  tenantId: string,
  rails: LiveRails,
  now: Date,
): Promise<StoredLiveRails> {
  const row: LiveRailsRow = {
    tenant_id: tenantId,
    card_provider: rails.card?.provider ?? null,
    card_credentials: rails.card?.credentials ?? null,
    pix_provider: rails.pix?.provider ?? null,
    pix_credentials: rails.pix?.credentials ?? null,
    boleto_provider: rails.boleto?.provider ?? null,
    boleto_credentials: rails.boleto?.credentials ?? null,
    updated_at: now,
  };
  await trx('live_rails').insert(row).onConflict('tenant_id').merge();
  return fromRow(row);
}
