import { Coalescer } from './coalesce';

/** A `run` whose batches the test answers by hand: `batches` lists the inputs of each, in order. */
function manualRun() {
  const batches: Array<{
    inputs: readonly string[];
    answer: (outputs: string[]) => void;
    fail: (e: Error) => void;
  }> = [];
  const run = (inputs: readonly string[]) =>
    new Promise<string[]>((resolve, reject) =>
      batches.push({ inputs, answer: resolve, fail: reject }),
    );
  return { batches, run };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const upper = (inputs: readonly string[]) => inputs.map((i) => i.toUpperCase());

describe('Coalescer', () => {
  it('sends a call made while nothing is in flight at once, alone', async () => {
    const { batches, run } = manualRun();
    const coalescer = new Coalescer(run);
    const answer = coalescer.call('a');
    expect(batches.map((b) => b.inputs)).toEqual([['a']]);
    batches[0]?.answer(['A']);
    await expect(answer).resolves.toBe('A');
  });

  it('sends the calls made while a batch is in flight together once it is answered, each getting its own output', async () => {
    const { batches, run } = manualRun();
    const coalescer = new Coalescer(run);
    const first = coalescer.call('a');
    const later = ['b', 'c', 'd'].map((x) => coalescer.call(x));
    await settle();
    // Still one batch: the later calls do not join the one already sent (they may need what it did not see).
    expect(batches.map((b) => b.inputs)).toEqual([['a']]);
    batches[0]?.answer(['A']);
    await settle();
    expect(batches.map((b) => b.inputs)).toEqual([['a'], ['b', 'c', 'd']]);
    batches[1]?.answer(upper(['b', 'c', 'd']));
    await expect(first).resolves.toBe('A');
    await expect(Promise.all(later)).resolves.toEqual(['B', 'C', 'D']);
  });

  it('sends at most batchMax calls in one batch', async () => {
    const { batches, run } = manualRun();
    const coalescer = new Coalescer(run, 2);
    const answers = ['a', 'b', 'c', 'd'].map((x) => coalescer.call(x));
    batches[0]?.answer(['A']);
    await settle();
    batches[1]?.answer(['B', 'C']);
    await settle();
    batches[2]?.answer(['D']);
    expect(batches.map((b) => b.inputs)).toEqual([['a'], ['b', 'c'], ['d']]);
    await expect(Promise.all(answers)).resolves.toEqual(['A', 'B', 'C', 'D']);
  });

  it('fails every call of a failed batch, and sends the next batch as usual', async () => {
    const { batches, run } = manualRun();
    const coalescer = new Coalescer(run);
    const first = coalescer.call('a');
    const failed = [coalescer.call('b'), coalescer.call('c')];
    batches[0]?.answer(['A']);
    await settle();
    const after = coalescer.call('d');
    batches[1]?.fail(new Error('connection lost'));
    for (const call of failed) await expect(call).rejects.toThrow('connection lost');
    await settle();
    expect(batches.map((b) => b.inputs)).toEqual([['a'], ['b', 'c'], ['d']]);
    batches[2]?.answer(['D']);
    await expect(first).resolves.toBe('A');
    await expect(after).resolves.toBe('D');
  });

  it('goes at once again after a quiet spell', async () => {
    const coalescer = new Coalescer(async (inputs: readonly string[]) => upper(inputs));
    await expect(coalescer.call('a')).resolves.toBe('A');
    await expect(coalescer.call('b')).resolves.toBe('B');
  });

  it('refuses a run that answers a different number of outputs than inputs, on every call of the batch', async () => {
    const coalescer = new Coalescer(async (inputs: readonly string[]) => upper(inputs).slice(1));
    const calls = [coalescer.call('a'), coalescer.call('b'), coalescer.call('c')];
    for (const call of calls) await expect(call).rejects.toThrow('coalescer.one-output-per-input');
  });
});
