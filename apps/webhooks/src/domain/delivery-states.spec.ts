import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAttempt } from './backoff';
import { DELIVERY_STATES, DELIVERY_TRIGGERS, deliveryTransition } from './delivery-states';
import type { DeliveryState, DeliveryTrigger } from './delivery-states';

/** The arrows of delivery-states.md's diagram, read from the file itself: `from --> to: trigger (…)`. */
function drawnArrows(): Array<{ from: string; to: string; trigger: string }> {
  const text = readFileSync(join(__dirname, 'delivery-states.md'), 'utf8');
  const diagram = /```mermaid\n(stateDiagram-v2\n[\s\S]*?)```/.exec(text)?.[1] ?? '';
  return diagram
    .split('\n')
    .map((line) => /^\s*(\S+) --> (\S+): (\w+)/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && match[1] !== '[*]')
    .map(([, from, to, trigger]) => ({ from: from!, to: to!, trigger: trigger! }));
}

describe('the webhook delivery state machine', () => {
  const arrows = drawnArrows();
  const drawn = new Map(arrows.map(({ from, trigger, to }) => [`${from} ${trigger}`, to]));

  it('draws only states and triggers the code has', () => {
    // Proves the diagram cannot name a state or trigger that delivery-states.ts does not know.
    expect(arrows.length).toBeGreaterThan(0);
    for (const { from, to, trigger } of arrows) {
      expect(DELIVERY_STATES).toContain(from);
      expect(DELIVERY_STATES).toContain(to);
      expect(DELIVERY_TRIGGERS).toContain(trigger);
    }
  });

  const cases: Array<readonly [DeliveryState, DeliveryTrigger]> = DELIVERY_STATES.flatMap((state) =>
    DELIVERY_TRIGGERS.map((trigger) => [state, trigger] as const),
  );
  it.each(cases)('from %s, %s goes where the diagram says, or nowhere', (state, trigger) => {
    // Proves each of the 3 × 4 (state, trigger) pairs: the drawn arrows are taken, every other is refused.
    expect(deliveryTransition(state, trigger)).toBe(drawn.get(`${state} ${trigger}`) ?? null);
  });

  it('afterAttempt takes the arrows out of pending that the diagram draws for an attempt', () => {
    // Proves the worker's decision after an attempt follows the table, window edge included.
    const policy = { baseMs: 1_000, capMs: 60_000 };
    const now = new Date('2026-03-01T12:00:00.000Z');
    const later = new Date(now.getTime() + 1);
    const outcome = (succeeded: boolean, giveUpAt: Date) =>
      afterAttempt({ succeeded, now, giveUpAt, failedInARow: 1 }, policy, () => 0.5).status;
    expect(outcome(true, later)).toBe(drawn.get('pending attempt_succeeded'));
    expect(outcome(false, later)).toBe(drawn.get('pending attempt_failed'));
    expect(outcome(false, now)).toBe(drawn.get('pending attempt_failed_after_window'));
  });
});
