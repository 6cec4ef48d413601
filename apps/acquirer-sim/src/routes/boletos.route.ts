import type { FastifyInstance } from 'fastify';
import { ReferenceParams, RegisterBoletoRequest, SIM_PATHS, WireBoleto, type RegisterBoletoRequestBody, type WireBoletoBody } from '@pgw/acquirer';
import { buildBarcode, digitableLine } from '@pgw/domain';
import type { Db } from '@pgw/platform-db';
import type { Clock } from '@pgw/platform-service';
import { created, iso, notFoundReply, reject } from '../http';

interface BoletoRow {
  reference: string;
  amount_cents: string | number;
  due_date: string;
  barcode: string;
  digitable_line: string;
  status: WireBoletoBody['status'];
  paid_at: Date | string | null;
}

// The simulated bank issues Bradesco-layout slips (bank 237): campo livre = agency (4), carteira (2),
// nosso número (11), account (7), '0'. The agency and account are the simulator's collection account.
const BANK_CODE = '237';
const AGENCY = '1234';
const CARTEIRA = '09';
const ACCOUNT = '0012345';

const toWire = (row: BoletoRow): WireBoletoBody => ({
  reference: row.reference,
  status: row.status,
  amount_cents: Number(row.amount_cents),
  barcode: row.barcode,
  digitable_line: row.digitable_line,
  due_date: row.due_date,
  paid_at: iso(row.paid_at),
});

/** The boleto bank: registers slips with valid FEBRABAN check digits and confirms their payment. */
export function boletosRoute(app: FastifyInstance, db: Db, clock: Clock): void {
  app.post<{ Body: RegisterBoletoRequestBody }>(
    SIM_PATHS.boletos,
    { schema: { body: RegisterBoletoRequest, response: { 200: WireBoleto, 201: WireBoleto } } },
    async (request, reply) => {
      const body = request.body;
      const result = await db.tx(async (trx) => {
        const existing = await trx('boletos').where({ reference: body.reference }).first<BoletoRow | undefined>();
        if (existing !== undefined) return { row: existing, isNew: false };
        // Banks refuse to register a slip that is already overdue; YYYY-MM-DD strings compare as dates.
        if (body.due_date < clock.today()) return null;
        const seq = await trx.raw<{ rows: Array<{ n: string | number }> }>(`select nextval('boleto_nosso_numero') as n`);
        const nossoNumero = String(seq.rows[0]?.n).padStart(11, '0');
        const barcode = buildBarcode({ bankCode: BANK_CODE, amountCents: body.amount_cents, dueDate: body.due_date, campoLivre: AGENCY + CARTEIRA + nossoNumero + ACCOUNT + '0' });
        const row = {
          reference: body.reference,
          amount_cents: body.amount_cents,
          due_date: body.due_date,
          barcode,
          digitable_line: digitableLine(barcode),
          status: 'registered',
          paid_at: null,
          created_at: clock.now(),
        };
        const inserted = await trx('boletos').insert(row).onConflict('reference').ignore().returning<BoletoRow[]>('*');
        if (inserted[0] !== undefined) return { row: inserted[0], isNew: true };
        return { row: await trx('boletos').where({ reference: body.reference }).first<BoletoRow>(), isNew: false };
      });
      if (result === null) return reject(reply, 'boleto_due_date_invalid', 'The due date is in the past.', 'due_date');
      if (Number(result.row.amount_cents) !== body.amount_cents || result.row.due_date !== body.due_date) {
        return reject(reply, 'reference_reused', 'This reference was used for another boleto.', 'reference');
      }
      return created(reply, result.isNew).send(toWire(result.row));
    },
  );

  app.get<{ Params: { reference: string } }>(SIM_PATHS.boleto, { schema: { params: ReferenceParams, response: { 200: WireBoleto } } }, async (request, reply) => {
    const row = await db.read((q) => q('boletos').where({ reference: request.params.reference }).first<BoletoRow | undefined>());
    if (row === undefined) return notFoundReply(reply, 'boleto');
    return toWire(row);
  });

  app.post<{ Params: { reference: string } }>(SIM_PATHS.boletoPay, { schema: { params: ReferenceParams, response: { 200: WireBoleto } } }, async (request, reply) => {
    const row = await db.tx(async (trx) => {
      const current = await trx('boletos').where({ reference: request.params.reference }).forUpdate().first<BoletoRow | undefined>();
      if (current === undefined || current.status === 'paid') return current;
      const updated = await trx('boletos').where({ reference: current.reference }).update({ status: 'paid', paid_at: clock.now() }).returning<BoletoRow[]>('*');
      return updated[0];
    });
    if (row === undefined) return notFoundReply(reply, 'boleto');
    return toWire(row);
  });
}
