import fc from 'fast-check';
import { addDays } from '@pgw/domain';
import {
  exposureBlock,
  priceItem,
  priceItems,
  totalsOf,
  treasuryBlock,
  type Candidate,
} from './quote';

const TODAY = '2026-03-02';
const candidate = (netCents: number, dueDate: string, id = 'recv_a'): Candidate => ({
  receivableId: id,
  netCents,
  dueDate,
});

describe('the fee of contract §4, against cases worked by hand', () => {
  it.each([
    // [what, net (item gross), bps a month, due date, days, fee]
    [
      '30 days at 1.99 %: 9701 × 199 × 30 / 300000 = 193.0499 → 193',
      9701,
      199,
      '2026-04-01',
      30,
      193,
    ],
    [
      '45 days at 2.5 %: 10000 × 250 × 45 / 300000 = 375 exactly',
      10_000,
      250,
      '2026-04-16',
      45,
      375,
    ],
    ['a half rounds up: 1500 × 100 × 1 / 300000 = 0.5 → 1', 1500, 100, '2026-03-03', 1, 1],
    [
      'just under a half rounds down: 1499 × 100 × 1 / 300000 = 0.4997 → 0',
      1499,
      100,
      '2026-03-03',
      1,
      0,
    ],
    [
      '2.5 rounds up to 3 (not to the even 2): 7500 × 100 × 1 / 300000',
      7500,
      100,
      '2026-03-03',
      1,
      3,
    ],
    [
      '364 days at 1.99 %: 3333 × 199 × 364 / 300000 = 804.764 → 805',
      3333,
      199,
      '2027-03-01',
      364,
      805,
    ],
    ['nothing at 0 bps', 50_000, 0, '2026-06-01', 91, 0],
  ])('%s', (_what, net, bps, dueDate, days, fee) => {
    // Proves the item's days count from today to the due date and its fee is the formula, half up.
    const item = priceItem(candidate(net, dueDate), bps, TODAY);
    expect(item).toMatchObject({
      daysAnticipated: days,
      grossCents: net,
      feeCents: fee,
      netCents: net - fee,
    });
  });

  it('counts calendar days across a leap February', () => {
    // Proves days_anticipated is calendar arithmetic (2028 is a leap year: Feb 28 → Mar 1 is 2 days).
    expect(priceItem(candidate(100, '2028-03-01'), 199, '2028-02-28').daysAnticipated).toBe(2);
  });

  it('charges at most the whole gross when the rate over the period passes 100 %', () => {
    // Proves the seller never pays to anticipate: 1000 × 10000 × 60 / 300000 = 2000 is capped at 1000.
    expect(priceItem(candidate(1000, '2026-05-01'), 10_000, TODAY)).toMatchObject({
      daysAnticipated: 60,
      feeCents: 1000,
      netCents: 0,
    });
  });

  it('refuses to price a receivable due today or earlier (eligibility is checked first)', () => {
    // Proves a broken eligibility check cannot slip through as a zero-day, zero-fee item.
    expect(() => priceItem(candidate(100, TODAY), 199, TODAY)).toThrow(
      /quote.priced-item-due-after-today/,
    );
    expect(() => priceItem(candidate(100, '2026-03-01'), 199, TODAY)).toThrow(
      /quote.priced-item-due-after-today/,
    );
  });

  it('totals three items by hand', () => {
    // Proves the totals are the sums of the items: 193 + 375 + 1 = 569 of fee.
    const items = [
      priceItem(candidate(9701, '2026-04-01', 'recv_1'), 199, TODAY),
      priceItem(candidate(10_000, '2026-04-16', 'recv_2'), 250, TODAY),
      priceItem(candidate(1500, '2026-03-03', 'recv_3'), 100, TODAY),
    ];
    expect(totalsOf(items)).toEqual({ grossCents: 21_201, feeCents: 569, netCents: 20_632 });
  });
});

describe('anticipation arithmetic properties (fast-check)', () => {
  const arbCandidate = fc.record({
    netCents: fc.integer({ min: 0, max: 1_000_000_000 }),
    days: fc.integer({ min: 1, max: 1_200 }),
  });

  it('fee ≤ gross, net + fee = gross, and the fee is exactly the half-up rounding of the formula', () => {
    // Proves, on random items, the per-item invariants against an independent BigInt oracle.
    fc.assert(
      fc.property(arbCandidate, fc.integer({ min: 0, max: 10_000 }), ({ netCents, days }, bps) => {
        const item = priceItem(candidate(netCents, addDays(TODAY, days)), bps, TODAY);
        // round_half_up(x / y) = floor((2x + y) / 2y) for x, y ≥ 0.
        const x = BigInt(netCents) * BigInt(bps) * BigInt(days);
        const oracle = Number((2n * x + 300_000n) / 600_000n);
        expect(item.daysAnticipated).toBe(days);
        expect(item.feeCents).toBe(Math.min(netCents, oracle));
        expect(item.feeCents).toBeGreaterThanOrEqual(0);
        expect(item.feeCents).toBeLessThanOrEqual(item.grossCents);
        expect(item.netCents + item.feeCents).toBe(item.grossCents);
      }),
      { numRuns: 2_000 },
    );
  });

  it('totals equal the sums of the items, and net + fee = gross in total too', () => {
    // Proves the totals on random lists, including the empty one.
    fc.assert(
      fc.property(
        fc.array(arbCandidate, { maxLength: 60 }),
        fc.integer({ min: 0, max: 10_000 }),
        (list, bps) => {
          const items = priceItems(
            list.map((c, i) => candidate(c.netCents, addDays(TODAY, c.days), `recv_${i}`)),
            bps,
            TODAY,
          );
          const totals = totalsOf(items);
          expect(totals.grossCents).toBe(items.reduce((s, i) => s + i.grossCents, 0));
          expect(totals.feeCents).toBe(items.reduce((s, i) => s + i.feeCents, 0));
          expect(totals.netCents).toBe(items.reduce((s, i) => s + i.netCents, 0));
          expect(totals.netCents + totals.feeCents).toBe(totals.grossCents);
          expect(totals.feeCents).toBeLessThanOrEqual(totals.grossCents);
        },
      ),
    );
  });
});

describe('the exposure and treasury blocks of contract §4', () => {
  it('exposure: projected = outstanding + request, available = max(0, limit − outstanding), within when projected ≤ limit', () => {
    // Proves each field as the contract defines it, at the boundary and past it.
    expect(
      exposureBlock({ limitCents: 10_000, outstandingCents: 3_000, requestGrossCents: 7_000 }),
    ).toEqual({
      limit_cents: 10_000,
      outstanding_cents: 3_000,
      projected_cents: 10_000,
      available_cents: 7_000,
      within_limit: true,
    });
    expect(
      exposureBlock({ limitCents: 10_000, outstandingCents: 3_000, requestGrossCents: 7_001 }),
    ).toMatchObject({ projected_cents: 10_001, within_limit: false });
    expect(
      exposureBlock({ limitCents: 10_000, outstandingCents: 12_000, requestGrossCents: 0 }),
    ).toEqual({
      limit_cents: 10_000,
      outstanding_cents: 12_000,
      projected_cents: 12_000,
      available_cents: 0,
      within_limit: false,
    });
  });

  it('treasury: available = cash − paid out (never below 0), requested = the net, within when requested ≤ available', () => {
    // Proves the treasury block and that past cash-outs count against it.
    expect(
      treasuryBlock({ treasuryCashCents: 5_000, cashOutCents: 1_000, requestNetCents: 4_000 }),
    ).toEqual({ available_cash_cents: 4_000, requested_cash_out_cents: 4_000, within_limit: true });
    expect(
      treasuryBlock({ treasuryCashCents: 5_000, cashOutCents: 1_000, requestNetCents: 4_001 }),
    ).toMatchObject({ within_limit: false });
    expect(
      treasuryBlock({ treasuryCashCents: 5_000, cashOutCents: 6_000, requestNetCents: 0 }),
    ).toEqual({ available_cash_cents: 0, requested_cash_out_cents: 0, within_limit: true });
  });
});
