import type { RegisterBoletoRequestBody } from '@pgw/acquirer';
import { buildBarcode, digitableLine } from '@pgw/domain';
import type { Clock } from '@pgw/platform-service';
import type { BoletoRow, SimStore } from '../data/sim-store';
import { insertedOrTaken, unlessReused, type Created } from './created';

// The simulated bank issues Bradesco-layout slips (bank 237): campo livre = agency (4), carteira (2),
// nosso número (11), account (7), '0'. The agency and account are the simulator's collection account.
const BANK_CODE = '237';
const AGENCY = '1234';
const CARTEIRA = '09';
const ACCOUNT = '0012345';

export type RegisterBoletoResult = Created<
  BoletoRow,
  'boleto_due_date_invalid' | 'reference_reused'
>;

/** The boleto bank: registers slips with valid FEBRABAN check digits. */
export async function registerBoleto(
  store: SimStore,
  clock: Clock,
  body: RegisterBoletoRequestBody,
): Promise<RegisterBoletoResult> {
  const result = await store.tx(async (repo) => {
    const existing = await repo.boletoByReference(body.reference);
    if (existing !== undefined) return { row: existing, isNew: false };
    // Banks refuse to register a slip that is already overdue; YYYY-MM-DD strings compare as dates.
    if (body.due_date < clock.today()) return null;
    const nossoNumero = String(await repo.nextNossoNumero()).padStart(11, '0');
    const barcode = buildBarcode({
      bankCode: BANK_CODE,
      amountCents: body.amount_cents,
      dueDate: body.due_date,
      campoLivre: AGENCY + CARTEIRA + nossoNumero + ACCOUNT + '0',
    });
    const row: BoletoRow = {
      reference: body.reference,
      amount_cents: body.amount_cents,
      due_date: body.due_date,
      barcode,
      digitable_line: digitableLine(barcode),
      status: 'registered',
      paid_at: null,
      created_at: clock.now(),
    };
    return insertedOrTaken(await repo.insertBoleto(row), () =>
      repo.boletoByReference(body.reference),
    );
  });
  if (result === null) return { rejected: 'boleto_due_date_invalid' };
  return unlessReused(
    result,
    (stored) =>
      Number(stored.amount_cents) === body.amount_cents && stored.due_date === body.due_date,
  );
}

export function boletoByReference(
  store: SimStore,
  reference: string,
): Promise<BoletoRow | undefined> {
  return store.read((repo) => repo.boletoByReference(reference));
}

/** Confirms a slip's payment, once; a paid slip is answered as it is. */
export function payBoleto(
  store: SimStore,
  clock: Clock,
  reference: string,
): Promise<BoletoRow | undefined> {
  return store.tx(async (repo) => {
    const current = await repo.lockBoleto(reference);
    if (current === undefined || current.status === 'paid') return current;
    return repo.updateBoleto(current.reference, { status: 'paid', paid_at: clock.now() });
  });
}
