import { newEnvelope, newEventId } from './events';

describe('event ids', () => {
  it('are evt_ and 24 base62 characters, new for every envelope', () => {
    const ids = [
      ...Array.from({ length: 100 }, newEventId),
      ...Array.from(
        { length: 100 },
        () =>
          newEnvelope('gateway.tenant-changed.v1', {
            producer: 'gateway',
            tenantId: 'ten_1',
            livemode: null,
          }).event_id,
      ),
    ];
    for (const id of ids) expect(id).toMatch(/^evt_[A-Za-z0-9]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
