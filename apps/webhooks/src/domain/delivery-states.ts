// A webhook delivery's state machine (delivery-states.md draws it): one table of which trigger moves which
// status where. Pure: the worker and the operator's redelivery decide the trigger, this says the result.

export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export const DELIVERY_TRIGGERS = [
  'attempt_succeeded',
  'attempt_failed',
  'attempt_failed_after_window',
  'redelivered',
] as const;
export type DeliveryTrigger = (typeof DELIVERY_TRIGGERS)[number];

const TRANSITIONS: Record<DeliveryTrigger, { from: readonly DeliveryState[]; to: DeliveryState }> =
  {
    attempt_succeeded: { from: ['pending'], to: 'succeeded' },
    attempt_failed: { from: ['pending'], to: 'pending' },
    attempt_failed_after_window: { from: ['pending'], to: 'failed' },
    redelivered: { from: ['pending', 'succeeded', 'failed'], to: 'pending' },
  };

/** Where `trigger` takes a delivery in `state`, or null when the machine has no such arrow. */
export function deliveryTransition(
  state: DeliveryState,
  trigger: DeliveryTrigger,
): DeliveryState | null {
  const rule = TRANSITIONS[trigger];
  return rule.from.includes(state) ? rule.to : null;
}
