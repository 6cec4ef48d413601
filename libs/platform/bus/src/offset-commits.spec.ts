import { OffsetCommits, type PartitionOffset } from './offset-commits';

describe('OffsetCommits', () => {
  const sent: PartitionOffset[][] = [];
  const errors: unknown[] = [];
  const commits = (intervalMs = 20) =>
    new OffsetCommits(
      async (offsets) => {
        sent.push(offsets);
      },
      intervalMs,
      (error) => errors.push(error),
    );
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  beforeEach(() => {
    sent.length = 0;
    errors.length = 0;
  });

  it('commits once per interval the offset after the last message applied of each partition, and nothing when idle', async () => {
    const c = commits();
    c.applied('charges', 0, '4');
    c.applied('charges', 0, '9');
    c.applied('charges', 1, '2');
    c.applied('sellers', 0, '99');
    expect(sent).toEqual([]);
    await sleep(60);
    expect(sent).toEqual([
      [
        { topic: 'charges', partition: 0, offset: '10' },
        { topic: 'charges', partition: 1, offset: '3' },
        { topic: 'sellers', partition: 0, offset: '100' },
      ],
    ]);
    await sleep(60);
    expect(sent).toHaveLength(1);
    c.stop();
  });

  it('flushes at once on demand, and stop ends the timed commits', async () => {
    const c = commits(10_000);
    c.applied('charges', 2, '7');
    await c.flush();
    expect(sent).toEqual([[{ topic: 'charges', partition: 2, offset: '8' }]]);
    await c.flush();
    expect(sent).toHaveLength(1);
    c.applied('charges', 2, '8');
    c.stop();
    await sleep(30);
    expect(sent).toHaveLength(1);
  });

  /** A commit that is under way until the test ends it, with a success or a failure. */
  const held = () => {
    const calls: Array<{ offsets: PartitionOffset[]; end: (error?: Error) => void }> = [];
    const c = new OffsetCommits(
      (offsets) =>
        new Promise<void>((resolve, reject) =>
          calls.push({ offsets, end: (error) => (error ? reject(error) : resolve()) }),
        ),
      10_000,
      (error) => errors.push(error),
    );
    const underWay = async () => {
      while (calls.length === 0) await sleep(1);
      return calls[0]!;
    };
    return { c, calls, underWay };
  };

  it('keeps a failed commit for the next try unless a newer offset arrived, and reports the failure', async () => {
    const { c, calls, underWay } = held();
    c.applied('charges', 0, '4');
    c.applied('charges', 1, '4');
    const first = c.flush();
    const commit = await underWay();
    c.applied('charges', 1, '6'); // applied while the commit was under way: newer than the one that fails
    commit.end(new Error('REBALANCE_IN_PROGRESS'));
    await first;
    expect(errors).toHaveLength(1);
    const second = c.flush();
    while (calls.length < 2) await sleep(1);
    calls[1]!.end();
    await second;
    expect(calls[1]!.offsets).toEqual([
      { topic: 'charges', partition: 1, offset: '7' },
      { topic: 'charges', partition: 0, offset: '5' },
    ]);
    c.stop();
  });

  it('forgets the partitions a rebalance took away, pending or failed, and keeps the ones it still holds', async () => {
    const { c, calls, underWay } = held();
    c.assign({ charges: [0, 1] });
    c.applied('charges', 0, '4');
    c.applied('charges', 1, '4');
    c.assign({ charges: [1] });
    const first = c.flush();
    (await underWay()).end();
    await first;
    expect(calls.map((x) => x.offsets)).toEqual([
      [{ topic: 'charges', partition: 1, offset: '5' }],
    ]);

    c.applied('charges', 1, '9');
    const failed = c.flush();
    while (calls.length < 2) await sleep(1);
    c.assign({ charges: [0] }); // the rebalance completes before the failed commit comes back
    calls[1]!.end(new Error('ILLEGAL_GENERATION'));
    await failed;
    await c.flush();
    expect(calls).toHaveLength(2); // nothing left to commit: partition 1 is another member's now
    c.stop();
  });

  it('runs one commit at a time, in the order asked', async () => {
    const order: string[] = [];
    let release: () => void = () => undefined;
    const c = new OffsetCommits(
      async (offsets) => {
        order.push(`start ${offsets[0]!.offset}`);
        if (offsets[0]!.offset === '1') await new Promise<void>((r) => (release = r));
        order.push(`end ${offsets[0]!.offset}`);
      },
      10_000,
      () => undefined,
    );
    c.applied('charges', 0, '0');
    const a = c.flush();
    await sleep(5);
    c.applied('charges', 0, '1');
    const b = c.flush();
    await sleep(5);
    expect(order).toEqual(['start 1']);
    release();
    await Promise.all([a, b]);
    expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
    c.stop();
  });
});
