import { DELIVERY_ID_PATTERN, newDeliveryId, newEndpointSecret } from './ids';

describe('the ids and secrets the webhooks service mints', () => {
  it('makes delivery ids of whd_ and 24 base62 characters, all different', () => {
    const ids = Array.from({ length: 200 }, newDeliveryId);
    for (const id of ids) {
      expect(id).toMatch(/^whd_[A-Za-z0-9]{24}$/);
      expect(DELIVERY_ID_PATTERN.test(id)).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('makes rotated signing secrets of whsec_ and 32 base62 characters, as the gateway does', () => {
    const secrets = Array.from({ length: 200 }, newEndpointSecret);
    for (const secret of secrets) expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(new Set(secrets).size).toBe(secrets.length);
  });
});
