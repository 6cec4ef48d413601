import { EVERY_WEBHOOK_KIND, WEBHOOK_EVENT_FILTERS, WEBHOOK_KINDS } from './webhook-kinds';

describe('webhook event kinds', () => {
  it("are contract §7's sixteen kinds, each `resource.change`, once each", () => {
    expect(WEBHOOK_KINDS).toHaveLength(16);
    expect(new Set(WEBHOOK_KINDS).size).toBe(WEBHOOK_KINDS.length);
    for (const kind of WEBHOOK_KINDS)
      expect(kind).toMatch(/^(charge|refund|chargeback|anticipation|settlement)\.[a-z_]+$/);
  });

  it("an endpoint filter names a kind or '*', which is no kind of its own", () => {
    expect(WEBHOOK_EVENT_FILTERS).toEqual([EVERY_WEBHOOK_KIND, ...WEBHOOK_KINDS]);
    expect(WEBHOOK_KINDS).not.toContain(EVERY_WEBHOOK_KIND);
  });
});
