import type { Knex } from 'knex';
import type { ProviderMode } from '@pgw/acquirer';
import { Coalescer, type Db, type Tx } from '@pgw/platform-db';
import type { CardProfile } from '@pgw/acquirer-simulator-domain/test-cards';
import type {
  AuthorizationRow,
  BoletoRow,
  CardRow,
  PixRow,
  RefundRow,
  SimRepository,
  SimStore,
} from './sim-store';

// The simulator's state in its own PostgreSQL schema (migrations.ts): the store of the simulator app, on
// PostgreSQL in the distributed mode and on the shared PGlite in the all-in-one.

class PgSimRepository implements SimRepository {
  constructor(private readonly q: Knex | Tx) {}

  /** Inserts unless the reference is taken (a concurrent twin may have won): the row, or undefined. */
  private async insertFirst<T>(table: string, row: object): Promise<T | undefined> {
    const inserted: T[] = await this.q(table)
      .insert(row)
      .onConflict('reference')
      .ignore()
      .returning('*');
    return inserted[0];
  }

  private async updateOne<T>(
    table: string,
    where: Record<string, string>,
    patch: object,
  ): Promise<T> {
    const updated: T[] = await this.q(table).where(where).update(patch).returning('*');
    return updated[0] as T;
  }

  insertCard(row: CardRow & { created_at: Date }): Promise<CardRow | undefined> {
    return this.insertFirst<CardRow>('cards', row);
  }

  cardByReference(reference: string): Promise<CardRow | undefined> {
    return this.q('cards').where({ reference }).first<CardRow | undefined>();
  }

  async cardProfile(cardRef: string): Promise<CardProfile | undefined> {
    const row = await this.q('cards')
      .where({ card_ref: cardRef })
      .first<{ profile: CardProfile } | undefined>('profile');
    return row?.profile;
  }

  authorizationByReference(reference: string): Promise<AuthorizationRow | undefined> {
    return this.q('authorizations').where({ reference }).first<AuthorizationRow | undefined>();
  }

  lockAuthorization(transactionId: string): Promise<AuthorizationRow | undefined> {
    return this.q('authorizations')
      .where({ transaction_id: transactionId })
      .forUpdate()
      .first<AuthorizationRow | undefined>();
  }

  updateAuthorization(
    transactionId: string,
    patch: Partial<AuthorizationRow>,
  ): Promise<AuthorizationRow> {
    return this.updateOne<AuthorizationRow>(
      'authorizations',
      { transaction_id: transactionId },
      patch,
    );
  }

  refundByReference(reference: string): Promise<RefundRow | undefined> {
    return this.q('refunds').where({ reference }).first<RefundRow | undefined>();
  }

  insertRefund(row: RefundRow): Promise<RefundRow | undefined> {
    return this.insertFirst<RefundRow>('refunds', row);
  }

  lockPix(reference: string): Promise<PixRow | undefined> {
    return this.q('pix_charges').where({ reference }).forUpdate().first<PixRow | undefined>();
  }

  insertPix(row: PixRow): Promise<PixRow | undefined> {
    return this.insertFirst<PixRow>('pix_charges', row);
  }

  updatePix(reference: string, patch: Partial<PixRow>): Promise<PixRow> {
    return this.updateOne<PixRow>('pix_charges', { reference: reference }, patch);
  }

  boletoByReference(reference: string): Promise<BoletoRow | undefined> {
    return this.q('boletos').where({ reference }).first<BoletoRow | undefined>();
  }

  lockBoleto(reference: string): Promise<BoletoRow | undefined> {
    return this.q('boletos').where({ reference }).forUpdate().first<BoletoRow | undefined>();
  }

  async nextNossoNumero(): Promise<number> {
    const seq = await this.q.raw<{ rows: Array<{ n: string | number }> }>(
      `select nextval('boleto_nosso_numero') as n`,
    );
    return Number(seq.rows[0]?.n);
  }

  insertBoleto(row: BoletoRow): Promise<BoletoRow | undefined> {
    return this.insertFirst<BoletoRow>('boletos', row);
  }

  updateBoleto(reference: string, patch: Partial<BoletoRow>): Promise<BoletoRow> {
    return this.updateOne<BoletoRow>('boletos', { reference: reference }, patch);
  }
}

/** Card profiles kept per process (a profile never changes); the oldest goes first beyond this. */
const KEPT_PROFILES = 10_000;
/** How long a read of the provider mode holds: another replica's change reaches this one within it. */
const MODE_HELD_MS = 1_000;

export class PgSimStore implements SimStore {
  // Read once: the key is made by the migration and never changes.
  private key: Promise<Buffer> | undefined;
  private readonly profiles = new Map<string, CardProfile>();
  private mode: { value: ProviderMode; atMs: number } | undefined;
  /**
   * The authorizations of concurrent requests, one multi-row insert for those that came while the last was
   * in flight (under load, a commit fewer per authorization); outside any transaction, each statement
   * commits alone. Of twins in one batch (one reference), the first is inserted and the others find it.
   */
  private readonly authorizationInserts = new Coalescer<
    AuthorizationRow,
    AuthorizationRow | undefined
  >(async (rows) => {
    const firstOfEach = new Map<string, AuthorizationRow>();
    for (const row of rows)
      if (!firstOfEach.has(row.reference)) firstOfEach.set(row.reference, row);
    // Only the ids come back: a row inserted is the row given (every column is set), and a statement with
    // no whole-row result is one PostgreSQL prepares once (prepared-statements.ts).
    const inserted: Array<Pick<AuthorizationRow, 'transaction_id'>> = await this.db.read((q) =>
      q('authorizations')
        .insert([...firstOfEach.values()])
        .onConflict('reference')
        .ignore()
        .returning('transaction_id'),
    );
    const insertedIds = new Set(inserted.map((row) => row.transaction_id));
    return rows.map((row) => (insertedIds.has(row.transaction_id) ? row : undefined));
  });

  constructor(private readonly db: Db) {}

  tx<T>(fn: (repo: SimRepository) => Promise<T>): Promise<T> {
    return this.db.tx((trx) => fn(new PgSimRepository(trx)));
  }

  read<T>(fn: (repo: SimRepository) => Promise<T>): Promise<T> {
    return this.db.read((q) => fn(new PgSimRepository(q)));
  }

  insertAuthorization(row: AuthorizationRow): Promise<AuthorizationRow | undefined> {
    return this.authorizationInserts.call(row);
  }

  async cardProfile(cardRef: string): Promise<CardProfile | undefined> {
    const kept = this.profiles.get(cardRef);
    if (kept !== undefined) return kept;
    const profile = await this.read((repo) => repo.cardProfile(cardRef));
    if (profile === undefined) return undefined;
    if (this.profiles.size >= KEPT_PROFILES)
      this.profiles.delete(this.profiles.keys().next().value as string);
    this.profiles.set(cardRef, profile);
    return profile;
  }

  /**
   * Read at most once a second (every request to the acquirer routes asks): the replica told of a change
   * applies it at once, the others within MODE_HELD_MS.
   */
  async readMode(): Promise<ProviderMode> {
    const now = performance.now();
    if (this.mode !== undefined && now - this.mode.atMs < MODE_HELD_MS) return this.mode.value;
    const row = await this.db.read((q) =>
      q('provider_mode').where({ id: 1 }).first<{ mode: ProviderMode } | undefined>('mode'),
    );
    const value = row?.mode ?? 'normal';
    this.mode = { value, atMs: now };
    return value;
  }

  async writeMode(mode: ProviderMode): Promise<void> {
    await this.db.tx((trx) =>
      trx('provider_mode').where({ id: 1 }).update({ mode, updated_at: trx.fn.now() }),
    );
    this.mode = { value: mode, atMs: performance.now() };
  }

  fingerprintKey(): Promise<Buffer> {
    return (this.key ??= this.db
      .read(async (q) => {
        const row = await q('sim_keys')
          .where({ id: 1 })
          .first<{ fingerprint_key: string }>('fingerprint_key');
        return Buffer.from(row.fingerprint_key, 'base64');
      })
      .catch((err: unknown) => {
        this.key = undefined; // a failed read (database restarting) is tried again by the next request
        throw err;
      }));
  }
}
