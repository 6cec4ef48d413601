import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isEligible, type LocalReceivable } from '../data/receivables.repository';
import { AnticipationBody } from '../resources';

const DIAGRAMS = readFileSync(join(__dirname, '..', 'domain', 'anticipation-states.md'), 'utf8');

/** The states of the n-th mermaid diagram of anticipation-states.md, read from its arrows. */
function drawnStates(n: number): string[] {
  const diagram =
    [...DIAGRAMS.matchAll(/```mermaid\n(stateDiagram-v2\n[\s\S]*?)```/g)][n]?.[1] ?? '';
  const states = diagram
    .split('\n')
    .flatMap((line) => /^\s*(\S+) --> ([^:\s]+)/.exec(line)?.slice(1, 3) ?? [])
    .filter((state) => state !== '[*]');
  return [...new Set(states)].sort();
}

const TODAY = '2026-03-10';

/** One receivable of this service's copy in each state the diagram draws. */
const IN_STATE: Record<string, LocalReceivable> = (() => {
  const base: LocalReceivable = {
    receivableId: 'rcv_1',
    chargeId: 'ch_1',
    version: 1,
    netCents: 9_500,
    dueDate: '2026-04-10',
    status: 'pending',
    grossCents: 10_000,
    debitedGrossCents: 0,
    anticipationId: null,
    anticipatedBy: null,
  };
  return {
    eligible: base,
    ineligible: { ...base, status: 'available' },
    reserved: { ...base, anticipatedBy: 'ant_1' },
    anticipated: {
      ...base,
      status: 'anticipated',
      anticipationId: 'ant_1',
      anticipatedBy: 'ant_1',
    },
  };
})();

describe('anticipation-states.md', () => {
  it("draws the anticipation's states as the API's resource has them: succeeded only", () => {
    // Proves the first diagram and the response schema name the same statuses.
    expect(drawnStates(0)).toEqual([AnticipationBody.properties.status.const]);
  });

  it('draws the states of a receivable that the code tells apart, and only eligible can be anticipated', () => {
    // Proves the second diagram against isEligible, the rule quotes and executions use.
    expect(drawnStates(1)).toEqual(Object.keys(IN_STATE).sort());
    const eligibleIn = Object.entries(IN_STATE).filter(([, receivable]) =>
      isEligible(receivable, TODAY),
    );
    expect(eligibleIn.map(([state]) => state)).toEqual(['eligible']);
  });

  it('puts a receivable out of eligible when its due date comes or it is debited in full', () => {
    // Proves the arrow eligible --> ineligible for the two reasons the diagram gives besides its status.
    expect(isEligible({ ...IN_STATE.eligible!, dueDate: TODAY }, TODAY)).toBe(false);
    expect(isEligible({ ...IN_STATE.eligible!, debitedGrossCents: 10_000 }, TODAY)).toBe(false);
  });
});
