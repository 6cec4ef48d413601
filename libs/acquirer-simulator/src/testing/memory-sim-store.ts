import { randomBytes } from 'node:crypto';
import type { ProviderMode } from '@pgw/acquirer';
import { detectBrand, fingerprint } from '@pgw/domain';
import type {
  AuthorizationRow,
  BoletoRow,
  CardRow,
  PixRow,
  RefundRow,
  SimRepository,
  SimStore,
} from '../data/sim-store';
import { simId } from '../http';
import { profileOf, type CardProfile } from '@pgw/acquirer-simulator-domain/test-cards';

// The simulator's state in memory, for specs of other services that want no database for it. Units of
// work run one at a time (that is its row lock); a unit that throws keeps what it wrote before (the
// simulator's operations write last). The maps hold the rows themselves, keyed as the wire looks them up,
// so a spec can read them, or change them to stage what the acquirer did behind the caller's back.

const copy = <T extends object>(row: T | undefined): T | undefined =>
  row === undefined ? undefined : { ...row };

/** Keeps a copy of `row` under `key` unless one is there: a copy of the row kept, or undefined. */
const insert = <T extends object>(map: Map<string, T>, key: string, row: T): T | undefined => {
  if (map.has(key)) return undefined;
  map.set(key, { ...row });
  return { ...row };
};

export class MemorySimStore implements SimStore {
  mode: ProviderMode = 'normal';
  /** By card_ref. */
  readonly cards = new Map<string, CardRow>();
  /** By the caller's reference. */
  readonly authorizations = new Map<string, AuthorizationRow>();
  readonly refunds = new Map<string, RefundRow>();
  readonly pix = new Map<string, PixRow>();
  readonly boletos = new Map<string, BoletoRow>();
  private readonly key = randomBytes(32);
  private nossoNumero = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly repo: SimRepository = this.repository();

  /** A card stored as the card store would store it, without a request: its card_ref. */
  addCard(pan: string, reference = simId('card_')): string {
    const cardRef = simId('card_');
    this.cards.set(cardRef, {
      card_ref: cardRef,
      reference,
      fingerprint: fingerprint(pan, this.key),
      profile: profileOf(pan),
      brand: detectBrand(pan),
      last4: pan.slice(-4),
      exp_month: 12,
      exp_year: 2030,
      holder_name: 'TEST CARD',
    });
    return cardRef;
  }

  tx<T>(fn: (repo: SimRepository) => Promise<T>): Promise<T> {
    const run = this.queue.then(() => fn(this.repo));
    this.queue = run.catch(() => undefined);
    return run;
  }

  read<T>(fn: (repo: SimRepository) => Promise<T>): Promise<T> {
    return fn(this.repo);
  }

  insertAuthorization(row: AuthorizationRow): Promise<AuthorizationRow | undefined> {
    return this.tx(async () => insert(this.authorizations, row.reference, row));
  }

  cardProfile(cardRef: string): Promise<CardProfile | undefined> {
    return this.repo.cardProfile(cardRef);
  }

  async readMode(): Promise<ProviderMode> {
    return this.mode;
  }

  async writeMode(mode: ProviderMode): Promise<void> {
    this.mode = mode;
  }

  async fingerprintKey(): Promise<Buffer> {
    return this.key;
  }

  private repository(): SimRepository {
    const byTransaction = (id: string) =>
      [...this.authorizations.values()].find((a) => a.transaction_id === id);
    const update = <T extends object>(row: T | undefined, patch: Partial<T>): T => {
      if (row === undefined) throw new Error('MemorySimStore: update of a row that is not there');
      return { ...Object.assign(row, patch) };
    };
    return {
      insertCard: async (row) => {
        if ([...this.cards.values()].some((c) => c.reference === row.reference)) return undefined;
        const { created_at: _createdAt, ...card } = row;
        return insert(this.cards, row.card_ref, card);
      },
      cardByReference: async (reference) =>
        copy([...this.cards.values()].find((c) => c.reference === reference)),
      cardProfile: async (cardRef): Promise<CardProfile | undefined> =>
        this.cards.get(cardRef)?.profile,
      authorizationByReference: async (reference) => copy(this.authorizations.get(reference)),
      lockAuthorization: async (transactionId) => copy(byTransaction(transactionId)),
      updateAuthorization: async (transactionId, patch) =>
        update(byTransaction(transactionId), patch),
      refundByReference: async (reference) => copy(this.refunds.get(reference)),
      insertRefund: async (row) => insert(this.refunds, row.reference, row),
      lockPix: async (reference) => copy(this.pix.get(reference)),
      insertPix: async (row) => insert(this.pix, row.reference, row),
      updatePix: async (reference, patch) => update(this.pix.get(reference), patch),
      boletoByReference: async (reference) => copy(this.boletos.get(reference)),
      lockBoleto: async (reference) => copy(this.boletos.get(reference)),
      nextNossoNumero: async () => ++this.nossoNumero,
      insertBoleto: async (row) => insert(this.boletos, row.reference, row),
      updateBoleto: async (reference, patch) => update(this.boletos.get(reference), patch),
    };
  }
}
