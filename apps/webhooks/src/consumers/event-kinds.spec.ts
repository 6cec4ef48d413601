import { TOPICS, WEBHOOK_KINDS } from '@pgw/contracts';
import { endpointWants, EVENT_KIND_RULES, webhookKindOf, webhookTopics } from './event-kinds';

describe('the event kind table', () => {
  it('maps the charges events to the kinds of contract §7', () => {
    expect(webhookKindOf('charges.charge-paid.v1', {})).toBe('charge.paid');
    // Every version of an event is its kind: a newer producer's version as an older one's.
    expect(webhookKindOf('charges.charge-paid.v2', {})).toBe('charge.paid');
    expect(webhookKindOf('charges.charge-charged-back.v1', {})).toBe('charge.chargeback');
    expect(webhookKindOf('charges.charge-partially-refunded.v1', {})).toBe(
      'charge.partially_refunded',
    );
    expect(webhookKindOf('charges.refund-succeeded.v1', {})).toBe('refund.succeeded');
    expect(webhookKindOf('charges.chargeback-opened.v1', {})).toBe('chargeback.opened');
    for (const rule of Object.values(EVENT_KIND_RULES)) expect(WEBHOOK_KINDS).toContain(rule.kind);
  });

  it('ignores types without a kind (directory, balance movements, unknown)', () => {
    expect(webhookKindOf('gateway.tenant-changed.v1', {})).toBeNull();
    expect(webhookKindOf('receivables.balance-moved.v1', {})).toBeNull();
    expect(webhookKindOf('toString', {})).toBeNull();
    expect(webhookKindOf('toString.v1', {})).toBeNull();
  });

  it('makes settlement.paid only of a settlement change to paid', () => {
    const type = 'receivables.settlement-changed.v1';
    expect(
      webhookKindOf(type, { settlement: { status: 'paid' }, previous_status: 'processing' }),
    ).toBe('settlement.paid');
    expect(
      webhookKindOf(type, { settlement: { status: 'processing' }, previous_status: 'pending' }),
    ).toBeNull();
    expect(
      webhookKindOf(type, { settlement: { status: 'paid' }, previous_status: 'paid' }),
    ).toBeNull();
  });

  it('subscribes to the charges topic, and never to the directory through this table', () => {
    expect(webhookTopics()).toContain(TOPICS.charges);
    expect(webhookTopics()).not.toContain(TOPICS.directory);
  });

  it("honours an endpoint's events filter, '*' being every kind", () => {
    expect(endpointWants(['*'], 'settlement.paid')).toBe(true);
    expect(endpointWants(['charge.paid'], 'charge.paid')).toBe(true);
    expect(endpointWants(['charge.paid'], 'charge.refunded')).toBe(false);
    // A deleted endpoint is announced with no kind: it receives nothing more.
    expect(endpointWants([], 'charge.paid')).toBe(false);
  });
});
