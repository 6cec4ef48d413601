import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { assert, newId } from '@pgw/domain';
import { ApiError, notFound, requireOperator } from '@pgw/platform-http';
import { disputableCents, isRefundable, transition } from '@pgw/charges-domain/charge';
import { findChargeById, lockCharge, updateCharge } from '../data/charge.repository';
import {
  heldByChargebacksCents,
  insertChargeback,
  lockChargeback,
  updateChargeback,
  type ChargebackRow,
} from '../data/chargeback.repository';
import { inFlightCents } from '../data/refund.repository';
import { announceChargeback, announceChargeStatus, type Announcer } from '../operations/announce';
import { acquirerFor } from '../operations/acquirer-for';
import type { ChargesDeps } from '../operations/deps';
import { confirmPayment, moveCharge } from '../operations/move-charge';
import {
  chargebackResource,
  ChargebackResource,
  chargeResource,
  ChargeResource,
} from '../resources';
import { requireId } from './common';

export const PAY_PATH = '/admin/v1/simulations/charges/:charge_id/pay';
export const CHARGEBACK_SIMULATION_PATH = '/admin/v1/simulations/chargebacks';
export const RESOLVE_PATH = '/admin/v1/simulations/chargebacks/:cb_id/resolve';

/** A new chargeback's evidence is due this many days after it opens (contract §4a). */
export const EVIDENCE_DAYS = 7;

const strict = { additionalProperties: false } as const;

const ChargebackBody = Type.Object(
  {
    charge_id: Type.String({ maxLength: 255 }),
    amount_cents: Type.Optional(Type.Integer({ minimum: 1 })),
    reason_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  strict,
);

const ResolveBody = Type.Object(
  { outcome: Type.Union([Type.Literal('won'), Type.Literal('lost')]) },
  strict,
);

const operatorOnly = async (request: Parameters<typeof requireOperator>[0]) =>
  requireOperator(request);

/** The operator simulations of contract §5 that charges owns: a buyer pays a Pix or boleto; a chargeback opens and resolves. */
export function simulationRoutes(app: FastifyInstance, deps: ChargesDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    PAY_PATH,
    {
      schema: {
        params: Type.Object({ charge_id: Type.String() }),
        response: { 200: ChargeResource },
      },
      preValidation: operatorOnly,
    },
    async (request) => {
      const id = requireId('ch_', request.params.charge_id, 'charge');
      const charge = await deps.db.read((q) => findChargeById(q, id));
      if (charge === undefined) throw notFound('charge');
      const announcer: Announcer = { db: deps.db, requestId: request.id };
      // Paying a paid Pix or boleto again changes nothing: the operator's retry is safe.
      if (
        charge.status === 'paid' &&
        (charge.payment_method === 'pix' || charge.payment_method === 'boleto')
      )
        return { ...chargeResource(charge, { withSplit: true }), request_id: request.id };
      if (
        charge.status !== 'pending' ||
        !charge.outcome_known ||
        (charge.payment_method !== 'pix' && charge.payment_method !== 'boleto')
      ) {
        throw new ApiError(
          'parameter_invalid',
          `charge_id: only a pending Pix or boleto can be paid; this charge is ${charge.payment_method}, ${charge.status}`,
          'charge_id',
        );
      }
      const acquirer = await acquirerFor(deps, charge);
      const result =
        charge.payment_method === 'pix' ? await acquirer.payPix(id) : await acquirer.payBoleto(id);
      if (!result.ok) {
        if (result.kind === 'rejected' && result.code === 'pix_not_payable') {
          // The PSP will not take payment of an expired Pix: the charge is canceled, as pix-expiry would.
          await deps.db.tx((trx) =>
            moveCharge(
              trx,
              charge,
              'pix_expired',
              { canceled_at: deps.clock.now() },
              deps.clock.now(),
              announcer,
            ),
          );
          throw new ApiError(
            'parameter_invalid',
            'charge_id: the Pix charge has expired and cannot be paid; it is now canceled',
            'charge_id',
          );
        }
        if (result.kind === 'rejected' || result.kind === 'not_found')
          throw new ApiError(
            'parameter_invalid',
            `charge_id: the provider refused the payment (${result.kind})`,
            'charge_id',
          );
        throw new ApiError(
          'provider_unavailable',
          'The payment provider could not be reached; nothing was paid. Retry.',
        );
      }
      if (result.value.status !== 'paid')
        throw new ApiError(
          'parameter_invalid',
          `charge_id: the provider did not confirm the payment (${result.value.status})`,
          'charge_id',
        );
      const { charge: paid } = await confirmPayment(deps, charge, result.value.paidAt, announcer);
      return { ...chargeResource(paid, { withSplit: true }), request_id: request.id };
    },
  );

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    CHARGEBACK_SIMULATION_PATH,
    {
      schema: { body: ChargebackBody, response: { 201: ChargebackResource } },
      preValidation: operatorOnly,
    },
    async (request, reply) => {
      const chargeId = requireId('ch_', request.body.charge_id, 'charge');
      const announcer: Announcer = { db: deps.db, requestId: request.id };
      const chargeback = await deps.db.tx(async (trx) => {
        const charge = await lockCharge(trx, null, chargeId);
        if (charge === undefined) throw notFound('charge');
        if (!isRefundable(charge.status))
          throw new ApiError(
            'parameter_invalid',
            `charge_id: only a paid or partially refunded charge can be charged back; this one is ${charge.status}`,
            'charge_id',
          );
        // What the buyer can still dispute is what is still the seller's (contract §4): more would reach
        // receivables as a take beyond the charge's receivables, which its consumer cannot apply.
        const disputable = disputableCents(
          charge.amount_cents,
          {
            succeededCents: charge.refunded_cents,
            inFlightCents: await inFlightCents(trx, charge.id),
          },
          await heldByChargebacksCents(trx, charge.id),
        );
        const amountCents = request.body.amount_cents ?? disputable;
        if (disputable === 0 || amountCents > disputable)
          throw new ApiError(
            'parameter_invalid',
            `amount_cents: at most ${disputable} cents can be charged back`,
            'amount_cents',
          );
        const now = deps.clock.now();
        const row: ChargebackRow = {
          id: newId('cb_'),
          charge_id: charge.id,
          tenant_id: charge.tenant_id,
          livemode: charge.livemode,
          seller_id: charge.seller_id,
          status: 'open',
          amount_cents: amountCents,
          reason_code: request.body.reason_code ?? null,
          evidence_due_at: new Date(now.getTime() + EVIDENCE_DAYS * 86_400_000),
          opened_at: now,
          resolved_at: null,
          created_at: now,
          updated_at: now,
        };
        await insertChargeback(trx, row);
        const next = transition(
          { status: charge.status, statusBeforeChargeback: charge.status_before_chargeback },
          'chargeback_opened',
        );
        const from = {
          charge_id: charge.id,
          trigger: 'chargeback_opened',
          status: charge.status,
        };
        assert(next !== null, 'charge.transition-exists', from);
        const updated = await updateCharge(trx, charge.id, {
          status: next,
          status_before_chargeback: charge.status,
          chargeback_cents: charge.chargeback_cents + amountCents,
          updated_at: now,
        });
        await announceChargeback(announcer, trx, updated, row);
        await announceChargeStatus(announcer, trx, updated);
        return row;
      });
      return reply.code(201).send({ ...chargebackResource(chargeback), request_id: request.id });
    },
  );

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    RESOLVE_PATH,
    {
      schema: {
        params: Type.Object({ cb_id: Type.String() }),
        body: ResolveBody,
        response: { 200: ChargebackResource },
      },
      preValidation: operatorOnly,
    },
    async (request) => {
      const id = requireId('cb_', request.params.cb_id, 'chargeback');
      const { outcome } = request.body;
      const announcer: Announcer = { db: deps.db, requestId: request.id };
      const chargeback = await deps.db.tx(async (trx) => {
        const current = await lockChargeback(trx, id);
        if (current === undefined) throw notFound('chargeback');
        if (current.status === outcome) return current; // the operator's retry: nothing changes
        if (current.status !== 'open' && current.status !== 'under_review') {
          throw new ApiError(
            'parameter_invalid',
            `outcome: the chargeback is already ${current.status}`,
            'outcome',
          );
        }
        const charge = await lockCharge(trx, null, current.charge_id);
        assert(charge !== undefined, 'chargeback.has-its-charge', { chargeback_id: id });
        const now = deps.clock.now();
        const resolved = await updateChargeback(trx, id, {
          status: outcome,
          resolved_at: now,
          updated_at: now,
        });
        const next = transition(
          { status: charge.status, statusBeforeChargeback: charge.status_before_chargeback },
          outcome === 'won' ? 'chargeback_won' : 'chargeback_lost',
        );
        const from = { charge_id: charge.id, trigger: outcome, status: charge.status };
        assert(next !== null, 'charge.transition-exists', from);
        const updated = await updateCharge(trx, charge.id, {
          status: next,
          ...(outcome === 'won'
            ? {
                status_before_chargeback: null,
                chargeback_cents: charge.chargeback_cents - current.amount_cents,
              }
            : {}),
          updated_at: now,
        });
        await announceChargeback(announcer, trx, updated, resolved);
        return resolved;
      });
      return { ...chargebackResource(chargeback), request_id: request.id };
    },
  );
}
