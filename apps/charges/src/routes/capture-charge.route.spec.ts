import { get, outboxEvents, post, setProviderMode } from '../testing/harness';
import { CHARGE_STATUSES } from '@pgw/domain';
import { chargeLifecycle } from '../testing/lifecycle';

const life = chargeLifecycle();
const { capture, charge, chargeIn } = life;

describe('capture (every allowed and refused transition)', () => {
  it('captures an authorized manual charge: paid, captured, paid_at set, charge-paid written', async () => {
    // Proves authorized → paid by capture, its answer and its event.
    const c = await chargeIn('authorized');
    expect(c.status).toBe('authorized');
    const res = await capture(c.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: c.id,
      status: 'paid',
      captured: true,
      paid_at: expect.any(String),
    });
    expect(life.h.acquirer.authorizations.get(c.id)?.status).toBe('captured');
    const events = await outboxEvents(life.h, c.id);
    expect(events.map((e) => e.type)).toEqual([
      'charges.charge-created.v1',
      'charges.charge-authorized.v1',
      'charges.charge-paid.v2',
    ]);
    const paid = events[2]!.event as {
      charge: { paid_at: number; captured: boolean; status: string };
      resource_json: string;
      brand: string | null;
      authorization_code: string | null;
    };
    expect(paid.charge).toMatchObject({
      status: 'paid',
      captured: true,
      paid_at: new Date(res.json().paid_at).getTime(),
    });
    // v2 carries the vault's brand of the token and the acquirer's authorization code, as the API shows it.
    expect([paid.brand, paid.authorization_code]).toEqual(['visa', res.json().authorization_code]);
    expect(paid.authorization_code).toEqual(expect.any(String));
    const { request_id: _r, ...resource } = (
      await get(life.h, `/api/v1/charges/${c.id}`, life.m.key)
    ).json();
    expect(JSON.parse(paid.resource_json)).toEqual(resource);
  });

  it.each(CHARGE_STATUSES.filter((s) => s !== 'authorized'))(
    'refuses to capture a %s charge: 422 charge_not_capturable',
    async (status) => {
      // Proves capture is refused from every status but authorized, and nothing changes.
      const c = await chargeIn(status);
      expect(c.status).toBe(status);
      const res = await capture(c.id);
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({
        type: 'invalid_request_error',
        code: 'charge_not_capturable',
      });
      expect((await charge(c.id)).status).toBe(status);
    },
  );

  it('refuses an unknown field in the capture body, and an id that is not a charge id is 404', async () => {
    // Proves capture takes no body fields and path ids are checked against their pattern.
    const c = await chargeIn('authorized');
    expect(
      (await post(life.h, `/api/v1/charges/${c.id}/capture`, life.m.key, { amount: 1 })).json()
        .error,
    ).toMatchObject({ code: 'parameter_unknown', param: 'amount' });
    expect((await capture('ch_not-an-id')).statusCode).toBe(404);
    expect((await capture('ch_doesnotexist')).statusCode).toBe(404);
  });

  it('answers 502 when the acquirer cannot be reached, leaves the charge authorized, and a later capture works', async () => {
    // Proves a capture that did not happen is not recorded, and is retryable.
    const c = await chargeIn('authorized');
    for (const mode of ['unavailable', 'timeout'] as const) {
      await setProviderMode(life.h, mode);
      const res = await capture(c.id);
      expect(res.statusCode).toBe(502);
      expect(res.json().error).toMatchObject({
        type: 'provider_error',
        code: 'provider_unavailable',
      });
      expect((await charge(c.id)).status).toBe('authorized');
    }
    await setProviderMode(life.h, 'normal');
    expect((await capture(c.id)).json().status).toBe('paid');
  });
});
