import { observeBrokenInvariants } from '@pgw/domain';
import { counter, INVARIANTS_BROKEN } from '@pgw/platform-metrics';

const brokenInvariants = counter(INVARIANTS_BROKEN);

/** Where the line goes: a pino logger (`app.log`) fits, and so does the stderr line below. */
export interface InvariantLog {
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * Installs the process's observer of @pgw/domain's `assert` (runMain and the all-in-one call it at start):
 * each broken invariant is counted (`invariants.broken`, by service and invariant) and logged as one
 * structured error line with the invariant's name, its context (ids, statuses, amounts: `assert` has
 * scrubbed digit runs from it) and the stack. What the throw then stops is docs/engineering.md's policy.
 * Returns how to remove it.
 */
export function reportBrokenInvariants(
  service: string,
  log: InvariantLog = stderrLog(service),
): () => void {
  return observeBrokenInvariants((broken) => {
    brokenInvariants.add(1, { service, invariant: broken.invariant });
    log.error(
      { invariant: broken.invariant, context: broken.context, stack: broken.stack },
      'invariant broken',
    );
  });
}

/** pino's line (level 50 is error), for a process that has no logger of its own before its app is built. */
function stderrLog(service: string): InvariantLog {
  return {
    error: (fields, message) => {
      const line = { level: 50, time: Date.now(), name: service, ...fields, msg: message };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    },
  };
}
