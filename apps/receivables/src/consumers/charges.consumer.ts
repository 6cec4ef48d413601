import { decodeEvent, TOPICS, type ChargeSnapshot, type EventEnvelope } from '@pgw/contracts';
import { assert } from '@pgw/domain';
import { HEADER_EVENT_TYPE, type BusMessage, type Prepare } from '@pgw/platform-bus';
import type { Db } from '@pgw/platform-db';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import type { AdjustmentKind } from '../data/charges.repository';
import {
  applyAdjustments,
  recordAdjustment,
  recordPaidCharges,
  scheduleCharge,
  type Environment,
  type PaidSnapshot,
} from '../operations/charges';
import { Work } from '../operations/context';

interface ChargeStep {
  envelope: EventEnvelope;
  charge: ChargeSnapshot;
  adjustment: { kind: AdjustmentKind; sourceId: string; amountCents: number } | null;
}

/**
 * The events that move receivables, every version of each (a test holds it to every version the contracts
 * have); the others (created, authorized, refunded...) carry no money of their own.
 */
export function decodeStep(type: string | undefined, value: Buffer): ChargeStep | null {
  switch (type) {
    case 'charges.charge-paid.v1':
    case 'charges.charge-paid.v2': {
      const e = decodeEvent(type, value);
      return { envelope: e.envelope, charge: e.charge, adjustment: null };
    }
    case 'charges.refund-succeeded.v1': {
      const e = decodeEvent(type, value);
      return {
        envelope: e.envelope,
        charge: e.charge,
        adjustment: {
          kind: 'refund',
          sourceId: e.refund.refund_id,
          amountCents: e.refund.amount_cents,
        },
      };
    }
    case 'charges.chargeback-opened.v1':
    case 'charges.chargeback-won.v1':
    case 'charges.chargeback-lost.v1': {
      const e = decodeEvent(type, value);
      const kind: AdjustmentKind =
        type === 'charges.chargeback-opened.v1'
          ? 'chargeback_opened'
          : type === 'charges.chargeback-won.v1'
            ? 'chargeback_won'
            : 'chargeback_lost';
      return {
        envelope: e.envelope,
        charge: e.charge,
        adjustment: {
          kind,
          sourceId: e.chargeback.chargeback_id,
          amountCents: e.chargeback.amount_cents,
        },
      };
    }
    default:
      return null;
  }
}

function environment(envelope: EventEnvelope): Environment {
  // A charge event without its tenant or environment cannot be placed: a producer bug, not a value to guess.
  if (envelope.tenant_id === null || envelope.livemode === null)
    throw new Error(`event ${envelope.event_id} has no tenant or environment`);
  return { tenantId: envelope.tenant_id, livemode: envelope.livemode };
}

/** The value kept for `key`, once: taken from the map, so a second call answers null. */
function takeOnce<V>(map: Map<string, V | null>, key: string): V | null {
  const value = map.get(key) ?? null;
  map.delete(key);
  return value;
}

/**
 * Charges' events, in each charge's order (the topic is keyed by charge). Every event whose snapshot
 * shows the charge paid records it, so a refund or a chargeback that arrives before (or instead of)
 * charge-paid still finds its charge; each refund and chargeback step is recorded once, by its id, and
 * applied once, in the order received. A batch's paid charges are recorded before its first step, in one
 * statement with their sellers' pricing terms (`prepare`); each charge then counts as inserted by the first
 * of the batch's events that shows it paid, as it would one event at a time.
 */
export function chargesConsumer(db: Db, clock: Clock): ConsumerDefinition {
  const prepare: Prepare = async (trx, batch) => {
    // Each message's step and the paid snapshot it records, decoded once for the batch.
    const steps = new Map<BusMessage, (ChargeStep & PaidSnapshot) | null>();
    for (const m of batch) {
      const step = decodeStep(m.headers[HEADER_EVENT_TYPE], m.value);
      steps.set(m, step === null ? null : { ...step, env: environment(step.envelope) });
    }
    const paid = [...steps.values()].filter((step) => step !== null);
    const recorded = await recordPaidCharges(trx, clock.now(), paid);
    return async (unit, message) => {
      const step = steps.get(message);
      assert(step !== undefined, 'receivables.applies-a-prepared-message');
      if (step === null) return;
      const { env } = step;
      const chargeId = step.charge.charge_id;
      const work = new Work(db, unit, clock, step.envelope.request_id);
      const inserted = step.charge.paid_at === null ? null : takeOnce(recorded, chargeId);
      if (step.adjustment !== null) {
        const { kind, sourceId, amountCents } = step.adjustment;
        await recordAdjustment(
          work,
          env,
          chargeId,
          kind,
          sourceId,
          amountCents,
          step.envelope.occurred_at,
        );
      }
      await scheduleCharge(work, chargeId, inserted);
      // A charge first seen in this event has no refund or chargeback step but the event's own.
      if (inserted === null || step.adjustment !== null) await applyAdjustments(work, chargeId);
      await work.flush();
    };
  };
  return {
    name: 'charges',
    topics: [TOPICS.charges],
    prepare,
    async apply(trx, message) {
      await (
        await prepare(trx, [message])
      )(trx, message);
    },
  };
}
