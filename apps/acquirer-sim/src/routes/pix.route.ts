import type { FastifyInstance } from 'fastify';
import {
  CreatePixChargeRequest,
  ReferenceParams,
  SIM_PATHS,
  WirePixCharge,
  type CreatePixChargeRequestBody,
  type WirePixChargeBody,
} from '@pgw/acquirer';
import { buildBrCode } from '@pgw/domain';
import type { Db, Tx } from '@pgw/platform-db';
import type { Clock } from '@pgw/platform-service';
import { created, iso, isoRequired, notFoundReply, reject, simId } from '../http';

interface PixRow {
  txid: string;
  reference: string;
  amount_cents: string | number;
  expires_in: number;
  qr_code: string;
  status: WirePixChargeBody['status'];
  expires_at: Date | string;
  paid_at: Date | string | null;
}

const MERCHANT_NAME = 'PGW PAGAMENTOS';
const MERCHANT_CITY = 'SAO PAULO';
/** The PSP's location host; a dynamic BR Code carries the location, and the txid lives behind it. */
const LOCATION_BASE = 'pix.acquirer-sim.test/v2/cob/';
const TXID_CHARS = 32;

const toWire = (row: PixRow): WirePixChargeBody => ({
  reference: row.reference,
  txid: row.txid,
  status: row.status,
  amount_cents: Number(row.amount_cents),
  qr_code: row.qr_code,
  expires_at: isoRequired(row.expires_at),
  paid_at: iso(row.paid_at),
});

/**
 * Reads a charge for change, locked, after applying its expiry: a PSP ends an unpaid charge at its
 * expiry on its own, so the status seen is the one at the simulator's clock.
 */
async function lockCurrent(trx: Tx, reference: string, now: Date): Promise<PixRow | undefined> {
  const row = await trx('pix_charges').where({ reference }).forUpdate().first<PixRow | undefined>();
  if (row === undefined || row.status !== 'active' || new Date(row.expires_at).getTime() > now.getTime()) return row;
  const updated = await trx('pix_charges').where({ reference }).update({ status: 'expired' }).returning<PixRow[]>('*');
  return updated[0];
}

/** The Pix PSP: dynamic charges with a BR Code, paid on the operator's command, expired on time or on demand. */
export function pixRoute(app: FastifyInstance, db: Db, clock: Clock): void {
  app.post<{ Body: CreatePixChargeRequestBody }>(
    SIM_PATHS.pixCharges,
    { schema: { body: CreatePixChargeRequest, response: { 200: WirePixCharge, 201: WirePixCharge } } },
    async (request, reply) => {
      const body = request.body;
      const now = clock.now();
      const txid = simId('', TXID_CHARS);
      const row = {
        txid,
        reference: body.reference,
        amount_cents: body.amount_cents,
        expires_in: body.expires_in,
        qr_code: buildBrCode({ merchantName: MERCHANT_NAME, merchantCity: MERCHANT_CITY, amountCents: body.amount_cents, txid: '***', locationUrl: LOCATION_BASE + txid }),
        status: 'active',
        expires_at: new Date(now.getTime() + body.expires_in * 1000),
        paid_at: null,
        created_at: now,
      };
      const result = await db.tx(async (trx) => {
        const inserted = await trx('pix_charges').insert(row).onConflict('reference').ignore().returning<PixRow[]>('*');
        if (inserted[0] !== undefined) return { row: inserted[0], isNew: true };
        return { row: (await lockCurrent(trx, body.reference, now)) as PixRow, isNew: false };
      });
      if (Number(result.row.amount_cents) !== body.amount_cents || result.row.expires_in !== body.expires_in) {
        return reject(reply, 'reference_reused', 'This reference was used for another Pix charge.', 'reference');
      }
      return created(reply, result.isNew).send(toWire(result.row));
    },
  );

  app.get<{ Params: { reference: string } }>(SIM_PATHS.pixCharge, { schema: { params: ReferenceParams, response: { 200: WirePixCharge } } }, async (request, reply) => {
    const row = await db.tx((trx) => lockCurrent(trx, request.params.reference, clock.now()));
    if (row === undefined) return notFoundReply(reply, 'Pix charge');
    return toWire(row);
  });

  app.post<{ Params: { reference: string } }>(SIM_PATHS.pixPay, { schema: { params: ReferenceParams, response: { 200: WirePixCharge } } }, async (request, reply) => {
    const now = clock.now();
    const result = await db.tx(async (trx) => {
      const row = await lockCurrent(trx, request.params.reference, now);
      if (row === undefined || row.status !== 'active') return row;
      const updated = await trx('pix_charges').where({ reference: row.reference }).update({ status: 'paid', paid_at: now }).returning<PixRow[]>('*');
      return updated[0];
    });
    if (result === undefined) return notFoundReply(reply, 'Pix charge');
    if (result.status === 'expired') return reject(reply, 'pix_not_payable', 'The Pix charge has expired.');
    return toWire(result);
  });

  app.post<{ Params: { reference: string } }>(SIM_PATHS.pixExpire, { schema: { params: ReferenceParams, response: { 200: WirePixCharge } } }, async (request, reply) => {
    const result = await db.tx(async (trx) => {
      const row = await lockCurrent(trx, request.params.reference, clock.now());
      if (row === undefined || row.status !== 'active') return row;
      const updated = await trx('pix_charges').where({ reference: row.reference }).update({ status: 'expired' }).returning<PixRow[]>('*');
      return updated[0];
    });
    if (result === undefined) return notFoundReply(reply, 'Pix charge');
    if (result.status === 'paid') return reject(reply, 'pix_not_expirable', 'The Pix charge is already paid.');
    return toWire(result);
  });
}
