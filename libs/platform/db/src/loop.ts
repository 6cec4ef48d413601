// The one background-loop primitive (issue 19 item 2): the outbox relay, the idempotency-key purge, the
// charges recovery and the bus retention all run as a startLoop. A round runs, then the loop waits; a round
// that throws is logged and counted, never dropped and never the end of the loop — unless it threw a broken
// invariant (@pgw/domain's `assert`): then the loop ends and the process halts (halt.ts), as a consumer's
// does, rather than run its next round on state it cannot trust. stop() waits for the round in flight, so a
// shutdown never cuts one in half.
import { isInvariantError } from '@pgw/domain';
import { haltProcess } from './halt';
import { backoffMs, type RetryPolicy } from './retry';

export interface LoopOptions {
  /** What the logs call it: `outbox relay`, `idempotency key purge`, … */
  name: string;
  /** The wait after a round that asks for no other. */
  intervalMs: number;
  /** One round. It may return the wait before the next one (0: at once); by default, intervalMs. */
  round(): Promise<number | void>;
  log: { warn(obj: object, msg: string): void };
  /** After failed rounds: the back-off of the n-th in a row (jittered, retry.ts); by default intervalMs each time. */
  failureBackoff?: Pick<RetryPolicy, 'baseMs' | 'capMs'>;
  /** Told of each failed round (a metric counts it there), with how many failed in a row. */
  onFailure?(error: unknown, failuresInARow: number): void;
  /** Whether the first round runs at once (true) or after intervalMs (false, the default). */
  runAtStart?: boolean;
  /** Whether its timer keeps the process alive; it does not by default. */
  ref?: boolean;
  /** The timer (specs pass one they fire by hand): calls `fire` after `ms`, returns its cancel. */
  setTimer?(fire: () => void, ms: number): () => void;
  random?(): number;
}

export interface Loop {
  /** Runs the next round as soon as possible: ends the wait now; during a round, the next starts at once unless this one failed. */
  kick(): void;
  /** No new round starts; resolves once the round in flight, if any, has ended. */
  stop(): Promise<void>;
  /** Failed rounds since the start, and in a row now. */
  readonly failures: { total: number; inARow: number };
}

export function startLoop(options: LoopOptions): Loop {
  const setTimer =
    options.setTimer ??
    ((fire: () => void, ms: number) => {
      const timer = setTimeout(fire, ms);
      if (options.ref !== true) timer.unref();
      return () => clearTimeout(timer);
    });
  const failures = { total: 0, inARow: 0 };
  let stopped = false;
  let kicked = false;
  let wake: (() => void) | null = null;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const cancel = setTimer(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        wake = null;
        cancel();
        resolve();
      };
    });

  const run = async (): Promise<void> => {
    if (options.runAtStart !== true) await wait(options.intervalMs);
    while (!stopped) {
      kicked = false;
      let delayMs: number;
      try {
        const asked = await options.round();
        failures.inARow = 0;
        delayMs = kicked ? 0 : (asked ?? options.intervalMs);
      } catch (error) {
        if (isInvariantError(error)) {
          // assert has logged and counted it already; no next round, and the process stops.
          options.log.warn(
            { err: error, loop: options.name },
            `${options.name} met a broken invariant; the process stops`,
          );
          stopped = true;
          haltProcess(error);
          break;
        }
        failures.total += 1;
        failures.inARow += 1;
        options.log.warn(
          { err: error, loop: options.name, failures: failures.inARow },
          `${options.name} round failed; the next round tries again`,
        );
        options.onFailure?.(error, failures.inARow);
        delayMs =
          options.failureBackoff === undefined
            ? options.intervalMs
            : backoffMs(options.failureBackoff, failures.inARow - 1, options.random);
      }
      if (stopped) break;
      if (delayMs > 0) await wait(delayMs);
    }
  };

  const running = run();
  return {
    kick() {
      kicked = true;
      wake?.();
    },
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
    failures,
  };
}
