import { createHash } from 'node:crypto';
import { BOLETO_AMOUNT_CENTS_MAX, buildBarcode, digitableLine } from '@pgw/domain';
import type {
  AcquirerPort,
  AcquirerResult,
  Boleto,
  BoletoPayer,
  RegisterBoletoInput,
} from '../../port';
import { REFERENCE_PATTERN } from '../../port';
import type { BankProfile } from './bank-profile';
import type { DropFolder } from './drop-folder';
import { FILE_SEQUENCE_MAX, REMITTANCE_BOLETOS_MAX, writeRemittance } from './remittance';
import { readReturnFile, type BoletoReturn } from './return-file';
import type {
  Cnab240Decision,
  Cnab240State,
  Cnab240Store,
  PendingRemittance,
  StoredBoleto,
} from './state-store';

// The boleto part of the acquirer port over CNAB 240 files (FEBRABAN cobrança), exchanged through drop
// folders. Registering a slip issues it at once (nosso número, barcode, digitable line: we issue, the bank
// registers) and queues it for the next remittance file; `exchangeFiles`, run by a job, writes that file and
// reads the bank's return files, which move each slip to registered, rejected, paid or written off.
//
//   registerBoleto ─▶ queued ─exchangeFiles: remittance written─▶ sent ─return 02─▶ registered ─return 06/17─▶ paid
//                                                                  │                  └─return 09/25─▶ written_off
//                                                                  └─return 03─▶ rejected (reasons)
//
// Crash safety of the remittance: its file sequence, name and bytes are committed to the store before the
// file is written; the write goes to a temporary name and is renamed; only then is the commitment cleared.
// A crash anywhere in between leaves the commitment, and the next run writes the same bytes under the same
// name again: one file, never a second sequence for the same slips. Return files are applied, handed to the
// caller, recorded as read and only then archived; a crash before the archive reads the file again, and
// the caller sees the same event ids again (at least once: dedupe by `id`).

/** The boleto methods of the port: what this adapter implements. */
export type BoletoPort = Pick<AcquirerPort, 'registerBoleto' | 'getBoleto' | 'payBoleto'>;

/** One slip movement read from a return file, for the caller to turn into the charge's events. */
export interface BoletoReturnEvent {
  /** Stable per return file and movement: the key to dedupe on. */
  id: string;
  /** Our reference, or null when the nosso número is not one this adapter issued. */
  reference: string | null;
  /** The slip as the port shows it after this movement (null when not ours). */
  boleto: Boleto | null;
  return: BoletoReturn;
}

export interface ExchangeOptions {
  /** Where remittance files go (the bank's inbound folder). */
  outbox: DropFolder;
  /** Where return files arrive (the bank's outbound folder); read files move to its processed/ sub-folder. */
  inbox: DropFolder;
  /** Called for every movement of every new return file, in file order; the file is archived once all calls resolved. */
  onReturn(event: BoletoReturnEvent): Promise<void>;
}

export interface ExchangeSummary {
  remittances: Array<{ name: string; fileSequence: number; boletos: number }>;
  returnFilesRead: string[];
  /** Files of the inbox that are not readable CNAB 240 return files: moved to unreadable/ with the reason. */
  unreadable: Array<{ name: string; error: string }>;
  events: number;
}

/** What a registration decided: the port's answer, or the broken invariant of a used-up nosso número range. */
type Registration =
  { kind: 'answer'; result: AcquirerResult<Boleto> } | { kind: 'exhausted'; sequence: number };

export interface Cnab240Clock {
  now(): Date;
  /** YYYY-MM-DD. */
  today(): string;
}

export interface Cnab240AdapterOptions {
  profile: BankProfile;
  store: Cnab240Store;
  clock: Cnab240Clock;
}

/** Remittance files one exchange writes at most: 10 × 30,000 slips; the rest wait for the next run. */
const REMITTANCES_PER_RUN_MAX = 10;
/** Return files one exchange reads at most; a bank sends a few a day, the rest wait for the next run. */
const RETURN_FILES_PER_RUN_MAX = 100;
/**
 * Read return files remembered. A bank sends one to a few a day, so this is years of files; a file older
 * than that sent again is read again, which changes nothing (a slip's outcome is applied idempotently, and
 * the caller dedupes events by id).
 */
const PROCESSED_RETURNS_KEPT = 10_000;
const referencePattern = new RegExp(REFERENCE_PATTERN);

function reject(
  code: 'invalid_request' | 'reference_reused' | 'boleto_due_date_invalid',
  message: string,
): AcquirerResult<never> {
  return { ok: false, kind: 'rejected', code, message };
}

/**
 * The payer as segment Q carries it, or why a bank would refuse it: banks reject a registration without
 * the payer's name, a CPF/CNPJ, address, CEP, city or UF (FEBRABAN reasons 45–48, 51–52), so we refuse it
 * before a remittance is written rather than learn it a day later from the return file.
 */
function readPayer(
  payer: BoletoPayer | undefined,
): { ok: true; value: BoletoPayer } | { ok: false; message: string } {
  if (payer === undefined)
    return {
      ok: false,
      message:
        "payer is required: a bank registers a slip only with the payer's name, CPF/CNPJ and address",
    };
  const blank = (text: string): boolean => text.trim() === '';
  if (!/^(\d{11}|\d{14})$/.test(payer.document))
    return { ok: false, message: 'payer.document must be a CPF (11 digits) or a CNPJ (14 digits)' };
  if (blank(payer.name)) return { ok: false, message: 'payer.name is required' };
  if (blank(payer.address)) return { ok: false, message: 'payer.address is required' };
  if (!/^\d{8}$/.test(payer.postalCode))
    return { ok: false, message: 'payer.postalCode must be a CEP of 8 digits' };
  if (blank(payer.city)) return { ok: false, message: 'payer.city is required' };
  if (!/^[A-Za-z]{2}$/.test(payer.state))
    return { ok: false, message: 'payer.state must be a UF of 2 letters' };
  return {
    ok: true,
    value: {
      ...payer,
      district: payer.district === null || blank(payer.district) ? null : payer.district,
      state: payer.state.toUpperCase(),
    },
  };
}

const samePayer = (a: BoletoPayer | null, b: BoletoPayer): boolean =>
  a !== null &&
  a.document === b.document &&
  a.name === b.name &&
  a.address === b.address &&
  a.district === b.district &&
  a.postalCode === b.postalCode &&
  a.city === b.city &&
  a.state === b.state;

function isCalendarDate(value: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}$/.test(value) &&
    !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
    new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value
  );
}

/** A calendar day of a bank (Brasília) as an instant: its midnight, UTC−3. */
function brasiliaMidnight(day: string): string {
  return new Date(`${day}T00:00:00.000-03:00`).toISOString();
}

export class Cnab240BoletoAdapter implements BoletoPort {
  readonly code: string;
  private readonly profile: BankProfile;
  private readonly store: Cnab240Store;
  private readonly clock: Cnab240Clock;
  // One exchange at a time in this process (two would list and archive the same files); across replicas
  // the caller's job lease keeps runs apart. Registrations need no queue: each is one store update.
  private exchanges: Promise<unknown> = Promise.resolve();

  constructor(options: Cnab240AdapterOptions) {
    this.profile = options.profile;
    this.store = options.store;
    this.clock = options.clock;
    this.code = `cnab240-${options.profile.bankCode}`;
  }

  async registerBoleto(input: RegisterBoletoInput): Promise<AcquirerResult<Boleto>> {
    if (!referencePattern.test(input.reference))
      return reject('invalid_request', 'reference must match ' + REFERENCE_PATTERN);
    if (
      !Number.isSafeInteger(input.amountCents) ||
      input.amountCents < 1 ||
      input.amountCents > BOLETO_AMOUNT_CENTS_MAX
    ) {
      return reject(
        'invalid_request',
        `amountCents must be an integer in 1..${BOLETO_AMOUNT_CENTS_MAX}`,
      );
    }
    if (!isCalendarDate(input.dueDate))
      return reject('invalid_request', 'dueDate must be YYYY-MM-DD');
    const read = readPayer(input.payer);
    if (!read.ok) return reject('invalid_request', read.message);
    const payer = read.value;
    let decided: Registration;
    try {
      decided = await this.store.update((state) => this.decideRegistration(state, input, payer));
    } catch (error) {
      // The state could not be read or saved; a save may have landed before it failed: only a lookup by the same reference can tell.
      return {
        ok: false,
        kind: 'timeout',
        message: `the CNAB 240 state could not be updated: ${String(error)}`,
      };
    }
    if (decided.kind === 'exhausted')
      throw new Error(
        `nosso número sequence exhausted at ${decided.sequence}: the bank must assign a new agreement`,
      );
    return decided.result;
  }

  /** A registration decided on the state as read: pure, so that the store can run it under its lock. */
  private decideRegistration(
    state: Cnab240State,
    input: RegisterBoletoInput,
    payer: BoletoPayer,
  ): Cnab240Decision<Registration> {
    const unchanged = (result: AcquirerResult<Boleto>): Cnab240Decision<Registration> => ({
      next: null,
      result: { kind: 'answer', result },
    });
    const existing = state.boletos[input.reference];
    if (existing !== undefined) {
      if (
        existing.amountCents !== input.amountCents ||
        existing.dueDate !== input.dueDate ||
        !samePayer(existing.payer, payer)
      ) {
        return unchanged(reject('reference_reused', 'This reference was used for another boleto.'));
      }
      return unchanged({ ok: true, value: this.toBoleto(existing) });
    }
    // Banks refuse to register a slip that is already overdue; YYYY-MM-DD strings compare as dates.
    if (input.dueDate < this.clock.today())
      return unchanged(reject('boleto_due_date_invalid', 'The due date is in the past.'));
    const sequence = state.nextNossoNumeroSequence;
    if (sequence > this.profile.nossoNumeroSequenceMax)
      return { next: null, result: { kind: 'exhausted', sequence } };
    const barcode = buildBarcode({
      bankCode: this.profile.bankCode,
      amountCents: input.amountCents,
      dueDate: input.dueDate,
      campoLivre: this.profile.campoLivre(sequence),
    });
    const boleto: StoredBoleto = {
      reference: input.reference,
      nossoNumeroSequence: sequence,
      amountCents: input.amountCents,
      dueDate: input.dueDate,
      issueDate: this.clock.today(),
      payer,
      barcode,
      digitableLine: digitableLine(barcode),
      status: 'queued',
      remittanceSequence: null,
      reasons: [],
      paidCents: null,
      netCreditCents: null,
      feeCents: null,
      paidOn: null,
      creditedOn: null,
      createdAt: this.clock.now().toISOString(),
    };
    return {
      next: {
        ...state,
        nextNossoNumeroSequence: sequence + 1,
        boletos: { ...state.boletos, [input.reference]: boleto },
      },
      result: { kind: 'answer', result: { ok: true, value: this.toBoleto(boleto) } },
    };
  }

  async getBoleto(reference: string): Promise<AcquirerResult<Boleto>> {
    let found: StoredBoleto | null;
    try {
      found = await this.getRegistration(reference);
    } catch (error) {
      return {
        ok: false,
        kind: 'unavailable',
        message: `the CNAB 240 state could not be read: ${String(error)}`,
      };
    }
    if (found === null)
      return { ok: false, kind: 'not_found', message: 'no boleto under this reference' };
    if (found.status === 'rejected') {
      const reasons = found.reasons.map((r) => `${r.code} ${r.description}`).join('; ');
      return reject(
        'invalid_request',
        `The bank rejected the registration: ${reasons || 'no reason given'}.`,
      );
    }
    if (found.status === 'written_off')
      return reject('invalid_request', 'The bank wrote the boleto off: it can no longer be paid.');
    return { ok: true, value: this.toBoleto(found) };
  }

  /** Everything known of a slip (status, the bank's reasons, amounts paid and credited), or null. */
  async getRegistration(reference: string): Promise<StoredBoleto | null> {
    const state = await this.store.load();
    return state.boletos[reference] ?? null;
  }

  payBoleto(): Promise<AcquirerResult<Boleto>> {
    // Only the simulator can pretend a buyer paid; a real slip is paid at a bank and its return file says so.
    return Promise.resolve(
      reject(
        'invalid_request',
        'A live boleto is paid by the buyer at a bank; the return file confirms it.',
      ),
    );
  }

  private toBoleto(b: StoredBoleto): Boleto {
    return {
      reference: b.reference,
      status: b.status === 'paid' ? 'paid' : 'registered',
      amountCents: b.amountCents,
      barcode: b.barcode,
      digitableLine: b.digitableLine,
      dueDate: b.dueDate,
      // The bank reports the day of payment, not the time: the start of that day in Brasília.
      paidAt: b.status === 'paid' && b.paidOn !== null ? brasiliaMidnight(b.paidOn) : null,
    };
  }

  /** The job: writes the pending remittance files, then reads the new return files. */
  exchangeFiles(options: ExchangeOptions): Promise<ExchangeSummary> {
    const work = async (): Promise<ExchangeSummary> => {
      const summary: ExchangeSummary = {
        remittances: [],
        returnFilesRead: [],
        unreadable: [],
        events: 0,
      };
      await this.writeRemittances(options.outbox, summary);
      await this.readReturns(options, summary);
      return summary;
    };
    const run = this.exchanges.then(work, work);
    this.exchanges = run.catch(() => undefined);
    return run;
  }

  private async writeRemittances(outbox: DropFolder, summary: ExchangeSummary): Promise<void> {
    for (let round = 0; round < REMITTANCES_PER_RUN_MAX; round++) {
      // The remittance a crashed run committed to, or a new one of the slips queued since.
      const pending = await this.store.update(
        (state): Cnab240Decision<PendingRemittance | null> => {
          if (state.pendingRemittance !== null)
            return { next: null, result: state.pendingRemittance };
          const queued = Object.values(state.boletos)
            .filter((b) => b.status === 'queued')
            .sort((a, b) => a.nossoNumeroSequence - b.nossoNumeroSequence)
            .slice(0, REMITTANCE_BOLETOS_MAX);
          if (queued.length === 0) return { next: null, result: null };
          const next = this.commitRemittance(state, queued);
          return { next, result: next.pendingRemittance };
        },
      );
      if (pending === null) return;
      await outbox.write(pending.name, pending.content);
      await this.store.update((state) => ({
        next:
          state.pendingRemittance?.fileSequence === pending.fileSequence
            ? { ...state, pendingRemittance: null }
            : null,
        result: undefined,
      }));
      summary.remittances.push({
        name: pending.name,
        fileSequence: pending.fileSequence,
        boletos: pending.references.length,
      });
    }
  }

  private commitRemittance(state: Cnab240State, queued: StoredBoleto[]): Cnab240State {
    const fileSequence = state.nextFileSequence;
    if (fileSequence > FILE_SEQUENCE_MAX)
      throw new Error(`remittance file sequence exhausted at ${fileSequence}`);
    const generatedAt = this.clock.now();
    const content = writeRemittance({
      profile: this.profile,
      fileSequence,
      generatedAt,
      boletos: queued.map((b) => ({
        nossoNumeroSequence: b.nossoNumeroSequence,
        seuNumero: String(b.nossoNumeroSequence),
        companyTag: companyTagOf(b.reference),
        amountCents: b.amountCents,
        dueDate: b.dueDate,
        issueDate: b.issueDate,
        payer: b.payer,
      })),
    });
    const boletos = { ...state.boletos };
    for (const b of queued)
      boletos[b.reference] = { ...b, status: 'sent', remittanceSequence: fileSequence };
    return {
      ...state,
      nextFileSequence: fileSequence + 1,
      boletos,
      pendingRemittance: {
        fileSequence,
        name: this.profile.remittanceFileName(fileSequence, this.clock.today()),
        content,
        references: queued.map((b) => b.reference),
      },
    };
  }

  private async readReturns(options: ExchangeOptions, summary: ExchangeSummary): Promise<void> {
    const names = (await options.inbox.list()).slice(0, RETURN_FILES_PER_RUN_MAX);
    for (const name of names) {
      const content = await options.inbox.read(name);
      const key = `${name}#${createHash('sha256').update(content, 'latin1').digest('hex')}`;
      const state = await this.store.load();
      if (state.processedReturns.includes(key)) {
        // Read and recorded by a run that stopped before archiving it.
        await options.inbox.archive(name, 'processed');
        continue;
      }
      const read = readReturnFile(content);
      if (!read.ok) {
        summary.unreadable.push({ name, error: read.error });
        await options.inbox.archive(name, 'unreadable');
        continue;
      }
      const bySequence = new Map<number, string>();
      for (const b of Object.values(state.boletos))
        bySequence.set(b.nossoNumeroSequence, b.reference);
      const boletos = { ...state.boletos };
      for (const ret of read.value.returns) {
        const sequence = this.profile.sequenceOf(ret.nossoNumero);
        const reference = sequence === null ? null : (bySequence.get(sequence) ?? null);
        const current = reference === null ? undefined : boletos[reference];
        let boleto: Boleto | null = null;
        if (reference !== null && current !== undefined) {
          const updated = applyReturn(current, ret);
          boletos[reference] = updated;
          boleto = this.toBoleto(updated);
        }
        await options.onReturn({ id: ret.id, reference, boleto, return: ret });
        summary.events++;
      }
      // Applied to the state as it is now, not to the copy read before the caller's handling: another
      // replica may have registered slips meanwhile, which saving that copy would lose.
      await this.store.update((now) => {
        if (now.processedReturns.includes(key)) return { next: null, result: undefined };
        const updated = { ...now.boletos };
        for (const ret of read.value.returns) {
          const sequence = this.profile.sequenceOf(ret.nossoNumero);
          const reference = sequence === null ? undefined : bySequence.get(sequence);
          const current = reference === undefined ? undefined : updated[reference];
          if (reference !== undefined && current !== undefined)
            updated[reference] = applyReturn(current, ret);
        }
        return {
          next: {
            ...now,
            boletos: updated,
            processedReturns: [...now.processedReturns, key].slice(-PROCESSED_RETURNS_KEPT),
          },
          result: undefined,
        };
      });
      await options.inbox.archive(name, 'processed');
      summary.returnFilesRead.push(name);
    }
  }
}

/**
 * Identificação do título na empresa (25 positions), which the bank echoes in segment T: the reference
 * itself when it fits, else a digest of it. The adapter matches returns by nosso número; this field is for
 * people reading the bank's statements.
 */
function companyTagOf(reference: string): string {
  if (reference.length <= 25) return reference;
  return createHash('sha256').update(reference).digest('hex').slice(0, 25);
}

/**
 * A slip after one movement of the bank. A paid slip stays paid whatever comes after (a late "baixa" of a
 * paid slip changes nothing), and a confirmation never undoes a payment that arrived first.
 */
export function applyReturn(current: StoredBoleto, ret: BoletoReturn): StoredBoleto {
  switch (ret.outcome) {
    case 'registered':
      return current.status === 'queued' || current.status === 'sent'
        ? { ...current, status: 'registered', reasons: ret.reasons }
        : current;
    case 'rejected':
      return current.status === 'paid'
        ? current
        : { ...current, status: 'rejected', reasons: ret.reasons };
    case 'paid':
      if (current.status === 'paid') return current;
      return {
        ...current,
        status: 'paid',
        reasons: ret.reasons,
        paidCents: ret.paidCents,
        netCreditCents: ret.netCreditCents,
        feeCents: ret.feeCents,
        paidOn: ret.occurredOn,
        creditedOn: ret.creditedOn,
      };
    case 'written_off':
      return current.status === 'paid'
        ? current
        : { ...current, status: 'written_off', reasons: ret.reasons };
    case 'other':
      return current;
  }
}
