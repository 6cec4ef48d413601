import { assert } from '@pgw/domain';

interface Waiting<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

/**
 * One statement for the calls of many requests ("smart batching"): a call made while no batch is in flight
 * goes at once, alone; the calls made while one is in flight wait for it and then go together, at most
 * `batchMax` at a time. No timer: at a low rate nothing waits, and under load a batch grows with the load
 * (each statement a commit fewer for the calls it carries). A call never joins a batch already sent, so a
 * read sees every write committed before the call was made. A batch that fails fails each of its calls.
 */
export class Coalescer<I, O> {
  private waiting: Array<Waiting<I, O>> = [];
  private inFlight = false;

  /** `run` answers one output per input, in the inputs' order. */
  constructor(
    private readonly run: (inputs: readonly I[]) => Promise<readonly O[]>,
    private readonly batchMax = 100,
  ) {}

  call(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (!this.inFlight) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.inFlight = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.batchMax);
      try {
        const outputs = await this.run(batch.map((w) => w.input));
        assert(outputs.length === batch.length, 'coalescer.one-output-per-input', {
          inputs: batch.length,
          outputs: outputs.length,
        });
        batch.forEach((w, i) => w.resolve(outputs[i] as O));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.inFlight = false;
  }
}
