// The soak run's traffic: a realistic mix of what integrators do, each operation one HTTP request through
// the gateway (or the operator API, for the simulated Pix/boleto payment), fed by what earlier answers
// returned (charges to capture, refund and read, receivables to anticipate, idempotency keys to replay).
// Every pool is bounded, so the soak process's own memory stays flat too.
import { randomUUID } from 'node:crypto';
import { BUYER, chargeBody, type Cluster } from '../bench/cluster';
import { retryAfterMs, send, sleep, type Answer, type Req } from '../bench/load';

export interface Outcome {
  status: number;
  /** Set when the answer is not what the operation expects (the reason, with an excerpt of the body). */
  unexpected?: string;
}

export interface Op {
  name: string;
  /** Share of the requests, relative to the other operations' weights. */
  weight: number;
  run(): Promise<Outcome>;
}

export interface MixContext {
  cluster: Cluster;
  /** Secret of a seller-scoped key holding every permission the mix uses. */
  key: string;
  /** Approved cards' tokens, and one whose authorization is refused. */
  tokens: string[];
  refusedToken: string;
  random: () => number;
  timeoutMs: number;
  /** Called for each 503 with Retry-After that the mix sent again after it. */
  onRetryAfter?: () => void;
}

/** A bounded pool: adding beyond the cap drops the oldest. */
class Pool<T> {
  private readonly items: T[] = [];
  constructor(private readonly cap: number) {}
  add(item: T): void {
    this.items.push(item);
    if (this.items.length > this.cap) this.items.shift();
  }
  /** Removes and returns a random item. */
  take(random: () => number): T | undefined {
    if (this.items.length === 0) return undefined;
    const i = Math.floor(random() * this.items.length);
    const [item] = this.items.splice(i, 1);
    return item;
  }
  pick(random: () => number): T | undefined {
    return this.items[Math.floor(random() * this.items.length)];
  }
  takeMany(n: number): T[] {
    return this.items.splice(0, n);
  }
  get size(): number {
    return this.items.length;
  }
}

const CARDS = ['4111 1111 1111 1111', '5555 5555 5555 4444', '3782 822463 10005'];

/** Seeded PRNG (mulberry32): the same seed gives the same sequence of operations. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function excerpt(a: Answer): string {
  return `${a.status} ${a.body.slice(0, 200)}`;
}

function expect(
  a: Answer,
  statuses: number[],
  check?: (body: Record<string, unknown>) => string | null,
): Outcome {
  if (!statuses.includes(a.status))
    return { status: a.status, unexpected: `expected ${statuses.join('/')}, got ${excerpt(a)}` };
  if (check !== undefined) {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(a.body) as Record<string, unknown>;
    } catch {
      return { status: a.status, unexpected: `not JSON: ${excerpt(a)}` };
    }
    const problem = check(body);
    if (problem !== null) return { status: a.status, unexpected: `${problem}: ${excerpt(a)}` };
  }
  return { status: a.status };
}

const notEligible = (body: Record<string, unknown>) =>
  (body.error as { code?: string } | undefined)?.code === 'receivable_not_eligible';

/** The operations and their weights (per 100 requests), with the pools they share. */
export function buildMix(ctx: MixContext): Op[] {
  const g = ctx.cluster.gatewayUrl;
  const auth = { authorization: `Bearer ${ctx.key}` };
  const admin = { authorization: `Bearer ${ctx.cluster.adminToken}` };
  const r = ctx.random;
  // As an integrator does (and the SDK): a 503 with Retry-After (the gateway at capacity) is sent once more
  // after it, the same request under the same Idempotency-Key; the second answer is the one checked.
  const call = async (req: Req): Promise<Answer> => {
    const first = await send(req, { timeoutMs: ctx.timeoutMs });
    const wait = retryAfterMs(first);
    if (wait === null) return first;
    ctx.onRetryAfter?.();
    await sleep(wait);
    return send(req, { timeoutMs: ctx.timeoutMs });
  };
  const get = (path: string) => call({ method: 'GET', url: `${g}${path}`, headers: auth });
  /** A POST as the seller; with `key`, under that Idempotency-Key (a fresh one for each new operation). */
  const post = (path: string, body?: string, key?: string) =>
    call({
      method: 'POST',
      url: `${g}${path}`,
      headers: key === undefined ? auth : { ...auth, 'idempotency-key': key },
      ...(body === undefined ? {} : { body }),
    });
  const chargeIds = new Pool<string>(500);
  const replayable = new Pool<{ key: string; body: string; id: string }>(200);
  const authorized = new Pool<string>(200);
  const refundable = new Pool<{ id: string; remaining: number }>(500);
  const pendingPix = new Pool<string>(200);
  const eligible = new Pool<string>(300);
  const amount = () => 1_000 + Math.floor(r() * 50) * 100;
  const token = () => ctx.tokens[Math.floor(r() * ctx.tokens.length)] as string;

  const createCard = async (capture: 'automatic' | 'manual'): Promise<Outcome> => {
    const cents = amount();
    const body = JSON.stringify({
      ...(JSON.parse(chargeBody(token(), cents)) as object),
      capture_method: capture,
    });
    const key = randomUUID();
    const a = await post('/api/v1/charges', body, key);
    const want = capture === 'automatic' ? 'paid' : 'authorized';
    const out = expect(a, [201], (b) =>
      b.status === want ? null : `status ${String(b.status)}, not ${want}`,
    );
    if (out.unexpected === undefined) {
      const id = (JSON.parse(a.body) as { id: string }).id;
      chargeIds.add(id);
      replayable.add({ key, body, id });
      if (capture === 'automatic') refundable.add({ id, remaining: cents });
      else authorized.add(id);
    }
    return out;
  };

  const createPending = async (method: 'PIX' | 'BOLETO'): Promise<Outcome> => {
    const extra = method === 'PIX' ? { pix: { expires_in: 3600 } } : {};
    const body = JSON.stringify({
      amount: amount(),
      payment_method: method,
      buyer: BUYER,
      ...extra,
    });
    const a = await post('/api/v1/charges', body, randomUUID());
    const out = expect(a, [201], (b) =>
      b.status === 'pending' ? null : `status ${String(b.status)}, not pending`,
    );
    if (out.unexpected === undefined) {
      const id = (JSON.parse(a.body) as { id: string }).id;
      chargeIds.add(id);
      pendingPix.add(id);
    }
    return out;
  };

  const getCharge = async (): Promise<Outcome> => {
    const id = chargeIds.pick(r);
    if (id === undefined) return balance();
    return expect(await get(`/api/v1/charges/${id}`), [200], (b) =>
      b.id === id ? null : 'another charge',
    );
  };

  const balance = async (): Promise<Outcome> => expect(await get('/api/v1/balance'), [200]);

  const receivables = async (): Promise<Outcome> => {
    const page = 1 + Math.floor(r() * 3);
    const a = await get(`/api/v1/receivables?status=pending&limit=20&page=${page}`);
    const out = expect(a, [200], (b) => (Array.isArray(b.data) ? null : 'no data array'));
    if (out.unexpected === undefined)
      for (const item of (JSON.parse(a.body) as { data: { id: string }[] }).data)
        eligible.add(item.id);
    return out;
  };

  const simulate = async (): Promise<Outcome> => {
    // Half over chosen receivables (a seller picking some), half over every eligible one (the default).
    const ids =
      r() < 0.5
        ? Array.from({ length: Math.min(10, eligible.size) }, () => eligible.pick(r) as string)
        : [];
    const body = ids.length > 0 ? JSON.stringify({ receivable_ids: [...new Set(ids)] }) : '{}';
    const a = await post('/api/v1/anticipations/simulate', body);
    // A listed receivable may have been refunded or anticipated since: 422 receivable_not_eligible.
    return expect(a, ids.length > 0 ? [200, 422] : [200], (b) =>
      b.object === 'anticipation_simulation' || notEligible(b)
        ? null
        : 'neither a simulation nor receivable_not_eligible',
    );
  };

  return [
    { name: 'charge.card', weight: 20, run: () => createCard('automatic') },
    {
      name: 'charge.card.replay',
      weight: 5,
      run: async () => {
        const prior = replayable.pick(r);
        if (prior === undefined) return createCard('automatic');
        const a = await post('/api/v1/charges', prior.body, prior.key);
        return expect(a, [201], (b) =>
          b.id !== prior.id
            ? `replay answered ${String(b.id)}, not ${prior.id}`
            : a.headers['idempotent-replayed'] !== 'true'
              ? 'no Idempotent-Replayed: true'
              : null,
        );
      },
    },
    {
      name: 'charge.card.refused',
      weight: 2,
      run: async () => {
        const a = await post(
          `/api/v1/charges`,
          chargeBody(ctx.refusedToken, amount()),
          randomUUID(),
        );
        return expect(a, [201], (b) =>
          b.status === 'refused' ? null : `status ${String(b.status)}, not refused`,
        );
      },
    },
    { name: 'charge.card.manual', weight: 8, run: () => createCard('manual') },
    {
      name: 'capture',
      weight: 7,
      run: async () => {
        const id = authorized.take(r);
        if (id === undefined) return createCard('manual');
        const a = await post(`/api/v1/charges/${id}/capture`, undefined, randomUUID());
        const out = expect(a, [200], (b) =>
          b.status === 'paid' ? null : `status ${String(b.status)}, not paid`,
        );
        if (out.unexpected === undefined)
          refundable.add({
            id,
            remaining: (JSON.parse(a.body) as { amount_cents: number }).amount_cents,
          });
        return out;
      },
    },
    {
      name: 'refund',
      weight: 6,
      run: async () => {
        const c = refundable.take(r);
        if (c === undefined) return getCharge();
        // Half partial (the charge stays refundable), half the remaining amount.
        const partial = r() < 0.5 && c.remaining > 500;
        const body = JSON.stringify(
          partial
            ? { amount_cents: Math.floor(c.remaining / 3), reason: 'partial return' }
            : { reason: 'requested_by_customer' },
        );
        const a = await post(`/api/v1/charges/${c.id}/refund`, body, randomUUID());
        const out = expect(a, [201], (b) =>
          b.status === 'succeeded' || b.status === 'failed'
            ? null
            : `refund status ${String(b.status)}`,
        );
        if (out.unexpected === undefined && partial)
          refundable.add({ id: c.id, remaining: c.remaining - Math.floor(c.remaining / 3) });
        return out;
      },
    },
    { name: 'charge.pix', weight: 8, run: () => createPending('PIX') },
    { name: 'charge.boleto', weight: 5, run: () => createPending('BOLETO') },
    {
      name: 'pay.pix_boleto',
      weight: 5,
      run: async () => {
        const id = pendingPix.take(r);
        if (id === undefined) return createPending('PIX');
        const a = await call({
          method: 'POST',
          url: `${g}/admin/v1/simulations/charges/${id}/pay`,
          headers: admin,
        });
        return expect(a, [200], (b) =>
          b.status === 'paid' ? null : `status ${String(b.status)}, not paid`,
        );
      },
    },
    { name: 'get.charge', weight: 12, run: getCharge },
    { name: 'get.balance', weight: 7, run: balance },
    { name: 'get.receivables', weight: 7, run: receivables },
    { name: 'anticipation.simulate', weight: 6, run: simulate },
    {
      name: 'anticipation.execute',
      weight: 0.3,
      run: async () => {
        const ids = eligible.takeMany(10);
        if (ids.length === 0) return simulate();
        const a = await post('/api/v1/anticipations', JSON.stringify({ receivable_ids: ids }));
        // 422 receivable_not_eligible: one of the ids was refunded or anticipated since it was listed.
        return expect(a, [201, 422], (b) =>
          a.status === 201 || notEligible(b) ? null : 'not receivable_not_eligible',
        );
      },
    },
    {
      name: 'tokenize',
      weight: 2,
      run: async () => {
        const body = JSON.stringify({
          card: {
            number: CARDS[Math.floor(r() * CARDS.length)],
            exp_month: 12,
            exp_year: 2030,
            cvv: '123',
            holder_name: 'Ana Souza',
          },
        });
        return expect(await post('/api/v1/payment-methods/tokenize', body), [201]);
      },
    },
  ];
}

/** Picks an operation by weight. */
export function picker(ops: Op[], random: () => number): () => Op {
  const total = ops.reduce((s, o) => s + o.weight, 0);
  return () => {
    let x = random() * total;
    for (const op of ops) {
      x -= op.weight;
      if (x < 0) return op;
    }
    return ops[ops.length - 1] as Op;
  };
}
