// The steady load of the fault run, as a careful integrator sends it: card charges, partial and full
// refunds and anticipations, each POST with an Idempotency-Key, retried with the same key and body on a
// 5xx, a timeout or a broken connection until a definitive answer, then replayed once. Every answer is
// kept for the checks. The load can be paused between exchanges so that the checks read a quiet system.
import type { Cluster, Seller } from '../bench/cluster';
import { BUYER } from '../bench/cluster';
import { send, sleep, type Answer } from '../bench/load';

const ATTEMPT_TIMEOUT_MS = 8_000;
/** A request gets this long to become definitive (a Kafka stop or a PostgreSQL restart must fit in it). */
const EXCHANGE_DEADLINE_MS = 180_000;

export interface Attempt {
  at: number;
  status: number | string;
  body: string;
  replayed: boolean;
}

export interface Exchange {
  kind: 'charge' | 'refund' | 'anticipation';
  key: string;
  path: string;
  body: string | undefined;
  sellerId: string;
  attempts: Attempt[];
  /** The first definitive answer; null while retrying or when it never came (the deadline). */
  final: Attempt | null;
  replay: Attempt | null;
  done: boolean;
}

/** Not definitive: the client must try again with the same key. */
export function retryable(a: Attempt): boolean {
  if (typeof a.status === 'string') return true;
  if (a.status >= 500 || a.status === 429) return true;
  return a.status === 409 && a.body.includes('idempotency_key_in_use');
}

/** An answer as compared across retries: the request id differs on every request. */
export function normalized(a: Attempt): string {
  return `${a.status} ${a.body.replace(/"request_id":"[^"]*"/g, '"request_id":"-"')}`;
}

export class Workload {
  readonly exchanges: Exchange[] = [];
  /** Anticipation turns with nothing to anticipate yet (no pending receivable of the seller). */
  skipped = 0;
  private paused = false;
  private stopped = false;
  private idle = 0;
  private workers: Promise<void>[] = [];
  private n = 0;

  constructor(
    private readonly cluster: Cluster,
    private readonly sellers: { seller: Seller; tokens: string[] }[],
    private readonly options: { workers: number; thinkMs: number },
  ) {}

  start(): void {
    this.workers = Array.from({ length: this.options.workers }, (_, w) => this.worker(w));
  }

  /** Resolves once every worker has finished its current exchange (with a definitive answer) and waits. */
  async pause(): Promise<void> {
    this.paused = true;
    while (this.idle < this.workers.length) await sleep(100);
  }

  resume(): void {
    this.paused = false;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.paused = false;
    await Promise.all(this.workers);
  }

  private async call(
    path: string,
    seller: Seller,
    key: string | null,
    body: string | undefined,
  ): Promise<Attempt> {
    const headers: Record<string, string> = { authorization: `Bearer ${seller.key}` };
    if (key !== null) headers['idempotency-key'] = key;
    const at = Date.now();
    try {
      const a: Answer = await send(
        {
          method: body === undefined && key === null ? 'GET' : 'POST',
          url: `${this.cluster.gatewayUrl}${path}`,
          headers,
          ...(body !== undefined ? { body } : {}),
        },
        { timeoutMs: ATTEMPT_TIMEOUT_MS },
      );
      return {
        at,
        status: a.status,
        body: a.body,
        replayed: a.headers['idempotent-replayed'] === 'true',
      };
    } catch (err) {
      return {
        at,
        status: err instanceof Error ? err.message : 'error',
        body: '',
        replayed: false,
      };
    }
  }

  /** Contract §3's client: the same key and body until a definitive answer, then one replay. */
  async idempotently(
    kind: Exchange['kind'],
    path: string,
    seller: Seller,
    key: string,
    body: string | undefined,
  ): Promise<Exchange> {
    const ex: Exchange = {
      kind,
      key,
      path,
      body,
      sellerId: seller.sellerId,
      attempts: [],
      final: null,
      replay: null,
      done: false,
    };
    this.exchanges.push(ex);
    const deadline = Date.now() + EXCHANGE_DEADLINE_MS;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const a = await this.call(path, seller, key, body);
      ex.attempts.push(a);
      if (!retryable(a)) {
        ex.final = a;
        // The replay is itself retried: a fault may land between the answer and the replay.
        for (let r = 0; Date.now() < deadline; r++) {
          const replay = await this.call(path, seller, key, body);
          if (!retryable(replay)) {
            ex.replay = replay;
            break;
          }
          await sleep(Math.min(1_000, 100 * 2 ** r));
        }
        break;
      }
      await sleep(Math.min(1_000, 100 * 2 ** attempt));
    }
    ex.done = true;
    return ex;
  }

  private async worker(w: number): Promise<void> {
    const refundable: string[] = [];
    for (let i = 0; !this.stopped; i++) {
      if (this.paused) {
        this.idle++;
        while (this.paused) await sleep(50);
        this.idle--;
        if (this.stopped) break;
      }
      const { seller, tokens } = this.sellers[(w + i) % this.sellers.length] as {
        seller: Seller;
        tokens: string[];
      };
      const step = this.n++;
      if (step % 7 === 6) {
        await this.anticipate(seller, `an-${w}-${i}`);
      } else {
        const amount = 3_000 + ((w * 7_919 + i * 104_729) % 30_000);
        const installments = 1 + (i % 3);
        const body = JSON.stringify({
          amount,
          payment_method: 'CREDIT_CARD',
          installments,
          card_token: tokens[i % tokens.length],
          buyer: BUYER,
        });
        const ex = await this.idempotently(
          'charge',
          '/api/v1/charges',
          seller,
          `ch-${w}-${i}`,
          body,
        );
        const charge =
          ex.final?.status === 201
            ? (JSON.parse(ex.final.body) as { id: string; status: string })
            : null;
        if (charge?.status === 'paid' && i % 2 === 0)
          refundable.push(`${charge.id}|${seller.sellerId}`);
        // Refunds go to charges made a little earlier, so that they meet other faults than their charge did.
        if (refundable.length > 2) {
          const [id, sellerId] = (refundable.shift() as string).split('|') as [string, string];
          const owner = this.sellers.find((s) => s.seller.sellerId === sellerId)?.seller as Seller;
          const partial = await this.idempotently(
            'refund',
            `/api/v1/charges/${id}/refund`,
            owner,
            `rf-${id}-1`,
            JSON.stringify({ amount_cents: 500 }),
          );
          if (partial.final?.status === 201 && i % 4 === 0)
            await this.idempotently(
              'refund',
              `/api/v1/charges/${id}/refund`,
              owner,
              `rf-${id}-2`,
              undefined,
            );
        }
      }
      await sleep(this.options.thinkMs);
    }
  }

  /** A few pending receivables of the seller, anticipated by id (the simulation first, as an integrator does). */
  private async anticipate(seller: Seller, key: string): Promise<void> {
    const simulated = await this.call('/api/v1/anticipations/simulate', seller, null, '{}');
    if (simulated.status !== 200) return;
    const list = await this.call(
      '/api/v1/receivables?status=pending&limit=20',
      seller,
      null,
      undefined,
    );
    if (list.status !== 200) return;
    const ids = (
      JSON.parse(list.body) as {
        data: { id: string; seller_id: string; status: string; due_date: string }[];
      }
    ).data
      .filter(
        (r) =>
          r.seller_id === seller.sellerId &&
          r.status === 'pending' &&
          r.due_date > new Date().toISOString().slice(0, 10),
      )
      .slice(0, 3)
      .map((r) => r.id);
    if (ids.length === 0) {
      this.skipped++;
      return;
    }
    await this.idempotently(
      'anticipation',
      '/api/v1/anticipations',
      seller,
      key,
      JSON.stringify({ receivable_ids: ids }),
    );
  }
}
