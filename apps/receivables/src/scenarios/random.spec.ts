// Random histories of sales, refunds, chargebacks, anticipations, releases and settlements (fast-check): whatever the
// order, after every step the shared invariant checker finds the ledger and the receivables agreeing to
// the cent, every journal entry balanced, no bucket negative, and each charge's gross equal to its amount
// less refunds and chargebacks. Each history runs with every event delivered twice.
import fc from 'fast-check';
import { addDays } from '@pgw/domain';
import type { ChargeSnapshot } from '@pgw/contracts';
import { createPgliteKnex } from '@pgw/platform-db';
import { Money } from './money.scenarios';
import { checkInvariants } from './invariants';

jest.setTimeout(600_000);
const knex = createPgliteKnex(null);
afterAll(() => knex.destroy());

const SELLERS = ['seller_a', 'seller_b', 'seller_c'];

type Step =
  | {
      kind: 'pay';
      seller: number;
      method: 'credit_card' | 'debit_card' | 'pix' | 'boleto';
      amount: number;
      installments: number;
      split: number[];
    }
  | { kind: 'refund'; charge: number; fraction: number }
  | { kind: 'chargeback'; charge: number; fraction: number; outcome: 'won' | 'lost' | 'open' }
  | { kind: 'anticipate'; seller: number; picks: number[]; feeShare: number }
  | { kind: 'release'; days: number }
  | { kind: 'settle' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      seller: fc.nat(2),
      method: fc.constantFrom(
        'credit_card' as const,
        'debit_card' as const,
        'pix' as const,
        'boleto' as const,
      ),
      amount: fc.integer({ min: 1, max: 2_000_000 }),
      installments: fc.integer({ min: 1, max: 12 }),
      split: fc.array(fc.double({ min: 0, max: 0.5, noNaN: true }), { maxLength: 2 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      charge: fc.nat(20),
      fraction: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('chargeback' as const),
      charge: fc.nat(20),
      fraction: fc.double({ min: 0, max: 1, noNaN: true }),
      outcome: fc.constantFrom('won' as const, 'lost' as const, 'open' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('anticipate' as const),
      seller: fc.nat(2),
      picks: fc.array(fc.nat(50), { minLength: 1, maxLength: 3 }),
      feeShare: fc.double({ min: 0, max: 0.1, noNaN: true }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('release' as const),
      days: fc.integer({ min: 0, max: 120 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'settle' as const }) },
);

interface Modelled {
  snapshot: ChargeSnapshot;
  /** amount - refunds - chargebacks not won */
  remaining: number;
  chargebackOpen: boolean;
}

it('keeps every invariant through random histories delivered twice (property)', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 12 }), async (steps) => {
      const money = await Money.start(knex, { copies: 2 });
      try {
        await money.publish(
          ...SELLERS.map((s, i) =>
            money.seller(s, {
              settlement_delay_days: [0, 10, 30][i]!,
              mdr_bps: { credit_card: 299 + i * 1000, debit_card: 199, pix: 99, boleto: 149 },
            }),
          ),
        );
        const charges: Modelled[] = [];
        let date = '2026-03-02';
        let n = 0;
        for (const s of steps) {
          if (s.kind === 'pay') {
            const others = SELLERS.filter((_, i) => i !== s.seller);
            const split = s.split
              .map((f, i) => ({
                recipient_seller_id: others[i]!,
                amount_cents: Math.floor(s.amount * f),
              }))
              .filter((x) => x.amount_cents > 0);
            const snapshot = money.charge(SELLERS[s.seller]!, {
              payment_method: s.method,
              amount_cents: s.amount,
              installments: s.installments,
              split,
            });
            charges.push({ snapshot, remaining: s.amount, chargebackOpen: false });
            await money.publish(money.paid(snapshot));
          } else if (s.kind === 'refund') {
            const c = charges[s.charge % Math.max(1, charges.length)];
            const amount = c === undefined ? 0 : Math.floor(c.remaining * s.fraction);
            if (c === undefined || c.chargebackOpen || amount < 1) continue;
            c.remaining -= amount;
            await money.publish(money.refunded(c.snapshot, amount));
          } else if (s.kind === 'chargeback') {
            const c = charges[s.charge % Math.max(1, charges.length)];
            const amount = c === undefined ? 0 : Math.max(1, Math.floor(c.remaining * s.fraction));
            if (c === undefined || c.chargebackOpen || c.remaining < 1) continue;
            const id = `cb_${n++}`;
            await money.publish(money.chargeback('opened', c.snapshot, id, amount));
            c.remaining -= amount;
            c.chargebackOpen = s.outcome === 'open';
            if (s.outcome !== 'open')
              await money.publish(money.chargeback(s.outcome, c.snapshot, id, amount));
            if (s.outcome === 'won') c.remaining += amount;
          } else if (s.kind === 'anticipate') {
            // The anticipation service's execution of some of the seller's pending receivables (eligible: pending, not anticipated).
            const seller = SELLERS[s.seller]!;
            const pending = (await money.receivablesDb.read((q) =>
              q('receivables')
                .where({
                  tenant_id: money.tenantId,
                  livemode: false,
                  seller_id: seller,
                  status: 'pending',
                })
                .whereNull('anticipation_id')
                .orderBy('seq'),
            )) as Array<Record<string, unknown>>;
            const picked = [
              ...new Set(
                s.picks
                  .map((i) => pending[i % Math.max(1, pending.length)])
                  .filter((r) => r !== undefined),
              ),
            ];
            if (picked.length === 0) continue;
            const items = picked.map((r) => {
              const receivable = {
                id: String(r.id),
                charge_id: String(r.charge_id),
                due_date: String(r.due_date),
                net_amount_cents: Number(r.net_amount_cents),
              };
              return {
                receivable,
                feeCents: Math.floor(receivable.net_amount_cents * s.feeShare),
                days: 30,
              };
            });
            await money.publish(money.anticipated(seller, items));
          } else if (s.kind === 'release') {
            date = addDays(date, s.days);
            await money.job('receivables-release', date);
          } else {
            await money.job('settlement-run', date);
          }
          await checkInvariants(
            money,
            new Map(charges.map((c) => [c.snapshot.charge_id, { grossCents: c.remaining }])),
          );
        }
      } finally {
        await money.stop();
      }
    }),
    { numRuns: 12 },
  );
});
