import type { FastifyInstance } from 'fastify';
import {
  ReferenceParams,
  RegisterBoletoRequest,
  SIM_PATHS,
  WireBoleto,
  type WireBoletoBody,
} from '@pgw/acquirer';
import type { Clock } from '@pgw/platform-service';
import type { BoletoRow, SimStore } from '../data/sim-store';
import { iso, type Refusals } from '../http';
import { createRoute, rowRoute } from './sim-routes';
import { boletoByReference, payBoleto, registerBoleto } from '../operations/boletos';

const toWire = (row: BoletoRow): WireBoletoBody => ({
  reference: row.reference,
  status: row.status,
  amount_cents: Number(row.amount_cents),
  barcode: row.barcode,
  digitable_line: row.digitable_line,
  due_date: row.due_date,
  paid_at: iso(row.paid_at),
});

const REFUSALS: Refusals<'boleto_due_date_invalid' | 'reference_reused'> = {
  boleto_due_date_invalid: { message: 'The due date is in the past.', param: 'due_date' },
  reference_reused: { message: 'This reference was used for another boleto.', param: 'reference' },
};

/** The boleto bank (operations/boletos.ts): registers slips and confirms their payment. */
export function boletosRoute(app: FastifyInstance, store: SimStore, clock: Clock): void {
  const boleto = { wire: WireBoleto, toWire };
  createRoute(app, boleto, {
    path: SIM_PATHS.boletos,
    body: RegisterBoletoRequest,
    create: (body) => registerBoleto(store, clock, body),
    refusals: REFUSALS,
  });
  const byReference = [
    {
      method: 'get',
      path: SIM_PATHS.boleto,
      answer: (ref: string) => boletoByReference(store, ref),
    },
    {
      method: 'post',
      path: SIM_PATHS.boletoPay,
      answer: (ref: string) => payBoleto(store, clock, ref),
    },
  ] as const;
  for (const { method, path, answer } of byReference)
    rowRoute(app, boleto, {
      method,
      path,
      params: ReferenceParams,
      notFound: 'boleto',
      answer: ({ reference }) => answer(reference),
    });
}
