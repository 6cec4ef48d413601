import {
  encodeEvent,
  eventTypeSchema,
  eventVersion,
  knownEventTypes,
  newEventId,
  type EventMap,
  type EventType,
} from '@pgw/contracts';
import { decodeStep } from './charges.consumer';

// The events that move money, by name: each version of them the contracts carry must be applied, or a
// producer that moves to a new version would have its payments skipped here without an error.
const MONEY_EVENTS = [
  'charges.charge-paid',
  'charges.refund-succeeded',
  'charges.chargeback-opened',
  'charges.chargeback-won',
  'charges.chargeback-lost',
];

/** A valid event of a type (avsc's random value of its schema) with a real event id: a random one may be empty. */
function sample<T>(type: string): T {
  const event = eventTypeSchema(type).random() as unknown as { envelope: { event_id: string } };
  event.envelope.event_id = newEventId();
  return event as T;
}

describe("receivables' reading of charges events", () => {
  it.each(
    knownEventTypes().filter((type) => MONEY_EVENTS.includes(eventVersion(type)?.event ?? '')),
  )('Proves every version of a money event is applied: %s', (type) => {
    const event = sample<{ charge: { charge_id: string } }>(type);
    const step = decodeStep(type, encodeEvent(type as EventType, event as never));
    expect(step?.charge.charge_id).toBe(event.charge.charge_id);
  });

  it('Proves the charge-paid of either version builds the same step, with no adjustment', () => {
    const v1 = sample<EventMap['charges.charge-paid.v1']>('charges.charge-paid.v1');
    const fromV1 = decodeStep('charges.charge-paid.v1', encodeEvent('charges.charge-paid.v1', v1));
    const fromV2 = decodeStep(
      'charges.charge-paid.v2',
      encodeEvent('charges.charge-paid.v2', { ...v1, brand: 'visa', authorization_code: 'A1B2C3' }),
    );
    expect(fromV2).toEqual(fromV1);
    expect(fromV1?.adjustment).toBeNull();
  });

  it('Proves an event that carries no money of its own is not a step', () => {
    const type = 'charges.charge-created.v1';
    expect(decodeStep(type, encodeEvent(type, sample<never>(type)))).toBeNull();
  });
});
