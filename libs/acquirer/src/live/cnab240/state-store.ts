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
  return { version: 1, nextNossoNumeroSequence: 1, nextFileSequence: 1, boletos: {}, pendingRemittance: null, processedReturns: [] };
}

/**
 * Where the state lives. A load sees the last completed save, whole. One writer at a time: the adapter
 * serialises its own calls; two processes sharing a store need a store that locks (a database row with
 * SELECT … FOR UPDATE in a deployment).
 */
export interface Cnab240Store {
  load(): Promise<Cnab240State>;
  save(state: Cnab240State): Promise<void>;
}

/** The state as one JSON file, replaced whole (temporary file, sync, rename): a crash leaves the old or the new. */
export class FileCnab240Store implements Cnab240Store {
  constructor(readonly path: string) {}

  async load(): Promise<Cnab240State> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return emptyState();
      throw error;
    }
    const state = JSON.parse(text) as Cnab240State;
    if (state.version !== 1) throw new Error(`${this.path}: unknown CNAB 240 state version ${String(state.version)}`);
    return state;
  }

  async save(state: Cnab240State): Promise<void> {
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
