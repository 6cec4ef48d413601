import { assert, isInvariantError, observeBrokenInvariants } from '@pgw/domain';
import { replaceHalt } from './halt';
import { startLoop, type LoopOptions } from './loop';

/** A timer fired by hand: `timers` lists the waits asked for, `fire()` ends the pending one. */
function manualTimer() {
  const timers: Array<{ ms: number; fire: () => void; cancelled: boolean }> = [];
  return {
    timers,
    setTimer: (fire: () => void, ms: number) => {
      const t = { ms, fire, cancelled: false };
      timers.push(t);
      return () => void (t.cancelled = true);
    },
    pending: () => timers.filter((t) => !t.cancelled).at(-1),
  };
}

/** Lets the loop's promises settle (no wall clock: only queued microtasks and I/O callbacks). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function logSink() {
  const warnings: Array<{ obj: object; msg: string }> = [];
  return { warnings, warn: (obj: object, msg: string) => void warnings.push({ obj, msg }) };
}

function loopOf(overrides: Partial<LoopOptions> & Pick<LoopOptions, 'round'>) {
  const timer = manualTimer();
  const log = logSink();
  const loop = startLoop({
    name: 'test loop',
    intervalMs: 1_000,
    log,
    setTimer: timer.setTimer,
    ...overrides,
  });
  return { loop, timer, log };
}

describe('startLoop', () => {
  it('runs a round after each interval, waiting for it to end before the next wait', async () => {
    let rounds = 0;
    const { loop, timer } = loopOf({ round: async () => void rounds++ });
    await settle();
    expect(rounds).toBe(0);
    expect(timer.pending()?.ms).toBe(1_000);
    timer.pending()!.fire();
    await settle();
    expect(rounds).toBe(1);
    timer.pending()!.fire();
    await settle();
    expect(rounds).toBe(2);
    expect(timer.timers.map((t) => t.ms)).toEqual([1_000, 1_000, 1_000]);
    await loop.stop();
  });

  it('runs the first round at once when asked, and waits what a round returns', async () => {
    const asked = [0, 250];
    let rounds = 0;
    const { loop, timer } = loopOf({
      runAtStart: true,
      round: async () => (rounds++, asked.shift()),
    });
    await settle();
    // 0: the second round ran at once; then 250 ms; then the interval.
    expect(rounds).toBe(2);
    expect(timer.pending()?.ms).toBe(250);
    timer.pending()!.fire();
    await settle();
    expect(rounds).toBe(3);
    expect(timer.pending()?.ms).toBe(1_000);
    await loop.stop();
  });

  it('logs and counts a failed round, backs off, and goes on', async () => {
    const failures: number[] = [];
    let calls = 0;
    const { loop, timer, log } = loopOf({
      runAtStart: true,
      failureBackoff: { baseMs: 100, capMs: 400 },
      random: () => 0.5,
      onFailure: (_error, inARow) => failures.push(inARow),
      round: async () => {
        calls++;
        if (calls <= 3) throw new Error(`broken ${calls}`);
      },
    });
    await settle();
    for (let i = 0; i < 3; i++) {
      timer.pending()!.fire();
      await settle();
    }
    expect(calls).toBe(4);
    expect(failures).toEqual([1, 2, 3]);
    expect(loop.failures).toEqual({ total: 3, inARow: 0 });
    // Jittered back-off (half the ceiling here): 50, 100, 200; then the interval again.
    expect(timer.timers.map((t) => t.ms)).toEqual([50, 100, 200, 1_000]);
    expect(log.warnings).toHaveLength(3);
    expect(log.warnings[0]).toEqual({
      obj: { err: new Error('broken 1'), loop: 'test loop', failures: 1 },
      msg: 'test loop round failed; the next round tries again',
    });
    await loop.stop();
  });

  it('wakes on kick; a kick during a round runs the next at once, unless that round failed', async () => {
    let release: () => void = () => undefined;
    let fail = false;
    let rounds = 0;
    const { loop, timer } = loopOf({
      round: () =>
        new Promise<void>((resolve, reject) => {
          rounds++;
          release = () => (fail ? reject(new Error('down')) : resolve());
        }),
    });
    await settle();
    loop.kick();
    await settle();
    expect(rounds).toBe(1);
    loop.kick();
    release();
    await settle();
    expect(rounds).toBe(2);
    fail = true;
    loop.kick();
    release();
    await settle();
    expect(rounds).toBe(2);
    expect(timer.pending()?.ms).toBe(1_000);
    const stopping = loop.stop();
    await stopping;
  });

  it('stop waits for the round in flight and starts no other', async () => {
    let release: () => void = () => undefined;
    let ended = false;
    let rounds = 0;
    const { loop } = loopOf({
      runAtStart: true,
      round: () =>
        new Promise<void>((resolve) => {
          rounds++;
          release = () => {
            ended = true;
            resolve();
          };
        }),
    });
    await settle();
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(ended).toBe(true);
    expect(rounds).toBe(1);
  });

  it('halts the process and runs no other round when a round breaks an invariant', async () => {
    // Proves docs/engineering.md's policy for loops (the outbox relay is one): a broken invariant is not a
    // failed round to try again — the loop ends and the process halts, through the consumers' haltProcess.
    const halted: unknown[] = [];
    const restoreHalt = replaceHalt((error) => halted.push(error));
    const restoreObserver = observeBrokenInvariants(() => undefined);
    try {
      let rounds = 0;
      const { loop, timer, log } = loopOf({
        runAtStart: true,
        round: async () => {
          rounds++;
          assert(false, 'test.loop-state', { round: rounds });
        },
      });
      await settle();
      expect(halted).toHaveLength(1);
      expect(isInvariantError(halted[0])).toBe(true);
      expect(halted[0]).toMatchObject({ invariant: 'test.loop-state' });
      expect(loop.failures.total).toBe(0);
      expect(timer.pending()).toBeUndefined();
      expect(log.warnings.map((w) => w.msg)).toEqual([
        'test loop met a broken invariant; the process stops',
      ]);
      await loop.stop();
      expect(rounds).toBe(1);
    } finally {
      restoreObserver();
      restoreHalt();
    }
  });

  it('after an ordinary failure tries again, and never halts the process', async () => {
    // Proves the halt is for broken invariants only: an operating error (a database outage) is retried.
    const halted: unknown[] = [];
    const restoreHalt = replaceHalt((error) => halted.push(error));
    try {
      let rounds = 0;
      const { loop, timer } = loopOf({
        runAtStart: true,
        round: async () => {
          rounds++;
          throw new Error('database unavailable');
        },
      });
      await settle();
      timer.pending()!.fire();
      await settle();
      expect(rounds).toBe(2);
      expect(halted).toEqual([]);
      await loop.stop();
    } finally {
      restoreHalt();
    }
  });
});
