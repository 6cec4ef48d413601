import { assert } from '@pgw/domain';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BoletoPayer } from '../../port';
import type { ReasonCode } from './codes';
import { syncDir } from './drop-folder';

// What the CNAB 240 adapter remembers between calls and between runs of the exchange job: the slips it
// issued, the sequences it handed out (nosso número, file sequence: never reused), the remittance file it
// committed to write, and the return files it has read.

export type StoredBoletoStatus =
  /** Issued here, waiting for the next remittance file. */
  | 'queued'
  /** In a remittance file; the bank has not answered yet. */
  | 'sent'
  /** Entrada confirmada (02). */
  | 'registered'
  /** Entrada rejeitada (03): see `reasons`. */
  | 'rejected'
  /** Liquidação (06, 17). */
  | 'paid'
  /** Baixa (09, 25): the slip can no longer be paid. */
  | 'written_off';

export interface StoredBoleto {
  reference: string;
  nossoNumeroSequence: number;
  amountCents: number;
  dueDate: string;
  issueDate: string;
  payer: BoletoPayer | null;
  barcode: string;
  digitableLine: string;
  status: StoredBoletoStatus;
  /** The file sequence of the remittance that carried it. */
  remittanceSequence: number | null;
  /** The reasons of the bank's last movement on it (a rejection's causes, a liquidation's channel). */
  reasons: ReasonCode[];
  paidCents: number | null;
  netCreditCents: number | null;
  feeCents: number | null;
  paidOn: string | null;
  creditedOn: string | null;
  createdAt: string;
}

export interface PendingRemittance {
  fileSequence: number;
  name: string;
  /** The whole file, fixed when it was committed to: writing it again gives the same bytes. */
  content: string;
  references: string[];
}

export interface Cnab240State {
  version: 1;
  nextNossoNumeroSequence: number;
  nextFileSequence: number;
  boletos: Record<string, StoredBoleto>;
  pendingRemittance: PendingRemittance | null;
  /** `<name>#<sha256 of content>` of the return files already read, oldest first. */
  processedReturns: string[];
}

export function emptyState(): Cnab240State {
  return {
    version: 1,
    nextNossoNumeroSequence: 1,
    nextFileSequence: 1,
    boletos: {},
    pendingRemittance: null,
    processedReturns: [],
  };
}

/** What one step of the adapter decides from the state it read: the state to save (null: unchanged) and its answer. */
export interface Cnab240Decision<T> {
  next: Cnab240State | null;
  result: T;
}

/**
 * Where the state lives. `load` sees the last completed update, whole. `update` reads the state, lets
 * `decide` (pure: no I/O) choose the next one, and saves it, as one step that no other update — of this
 * process or of another replica sharing the store — interleaves with; a failed save leaves the state as
 * it was or as decided, never half of it.
 */
export interface Cnab240Store {
  load(): Promise<Cnab240State>;
  update<T>(decide: (state: Cnab240State) => Cnab240Decision<T>): Promise<T>;
}

/** Reads a saved state, refusing one of a format this code does not know. */
export function parseCnab240State(text: string, where: string): Cnab240State {
  const state = JSON.parse(text) as Cnab240State;
  assert(state.version === 1, 'cnab240.state-version-known', {
    where,
    version: String(state.version),
  });
  return state;
}

/**
 * The state as one JSON file, replaced whole (temporary file, sync, rename): a crash leaves the old or the
 * new. One process only: its updates are serialised in memory, and a second process on the same file
 * would overwrite the first's (several replicas use a database store, e.g. charges' `cnab240_states`).
 */
export class FileCnab240Store implements Cnab240Store {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  async load(): Promise<Cnab240State> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return emptyState();
      throw error;
    }
    return parseCnab240State(text, this.path);
  }

  update<T>(decide: (state: Cnab240State) => Cnab240Decision<T>): Promise<T> {
    const work = async (): Promise<T> => {
      const { next, result } = decide(await this.load());
      if (next !== null) await this.save(next);
      return result;
    };
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async save(state: Cnab240State): Promise<void> {
    const dir = dirname(this.path);
    await mkdir(dir, { recursive: true });
    const temp = `${this.path}.tmp`;
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(JSON.stringify(state), 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, this.path);
    await syncDir(dir);
  }
}
