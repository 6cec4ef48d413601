import type { FastifyInstance } from 'fastify';
import {
  CreatePixChargeRequest,
  ReferenceParams,
  SIM_PATHS,
  WirePixCharge,
  type WirePixChargeBody,
} from '@pgw/acquirer';
import type { Clock } from '@pgw/platform-service';
import type { PixRow, SimStore } from '../data/sim-store';
import { iso, isoRequired, type Refusals } from '../http';
import { createRoute, rowRoute } from './sim-routes';
import { createPixCharge, expirePix, payPix, pixCharge } from '../operations/pix';

const toWire = (row: PixRow): WirePixChargeBody => ({
  reference: row.reference,
  txid: row.txid,
  status: row.status,
  amount_cents: Number(row.amount_cents),
  qr_code: row.qr_code,
  expires_at: isoRequired(row.expires_at),
  paid_at: iso(row.paid_at),
});

const REFUSALS: Refusals<'reference_reused'> = {
  reference_reused: {
    message: 'This reference was used for another Pix charge.',
    param: 'reference',
  },
};

const SETTLE_REFUSALS = {
  pix_not_payable: 'The Pix charge has expired.',
  pix_not_expirable: 'The Pix charge is already paid.',
};

/** The Pix PSP (operations/pix.ts): a charge's status is the one at the simulator's clock. */
export function pixRoute(app: FastifyInstance, store: SimStore, clock: Clock): void {
  const pix = { wire: WirePixCharge, toWire };
  createRoute(app, pix, {
    path: SIM_PATHS.pixCharges,
    body: CreatePixChargeRequest,
    create: (body) => createPixCharge(store, clock, body),
    refusals: REFUSALS,
  });
  const byReference = [
    { method: 'get', path: SIM_PATHS.pixCharge, answer: pixCharge },
    { method: 'post', path: SIM_PATHS.pixPay, answer: payPix },
    { method: 'post', path: SIM_PATHS.pixExpire, answer: expirePix },
  ] as const;
  for (const { method, path, answer } of byReference)
    rowRoute(app, pix, {
      method,
      path,
      params: ReferenceParams,
      notFound: 'Pix charge',
      answer: ({ reference }) => answer(store, clock, reference),
      refusals: SETTLE_REFUSALS,
    });
}
