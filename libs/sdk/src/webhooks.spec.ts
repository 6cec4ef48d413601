import { signWebhook } from '@pgw/webhook-signature';
import { constructEvent, SignatureVerificationError } from './webhooks';

const EVENT = {
  id: 'evt_1',
  object: 'event',
  type: 'charge.paid',
  created_at: '2026-11-25T10:00:00.000Z',
  livemode: false,
  data: { object: { id: 'ch_1', object: 'charge' } },
  request_id: 'req_1',
};
const NOW = 1_790_000_000;

describe('webhooks.constructEvent', () => {
  it('returns the event of a body signed with the secret, given as text or as bytes', () => {
    // Proves the contract §7 signature is accepted over the raw body in both forms a server hands out.
    const raw = JSON.stringify(EVENT);
    const header = signWebhook('whsec_a', raw, NOW);
    expect(constructEvent(raw, header, 'whsec_a', { nowSeconds: NOW })).toEqual(EVENT);
    expect(
      constructEvent(new TextEncoder().encode(raw), header, ['whsec_b', 'whsec_a'], {
        nowSeconds: NOW + 10,
      }).id,
    ).toBe('evt_1');
  });

  it('refuses another secret, a changed body, a missing header and an old timestamp', () => {
    // Proves each reason of refusal, and that the tolerance is the caller's to set.
    const raw = JSON.stringify(EVENT);
    const header = signWebhook('whsec_a', raw, NOW);
    const reason = (f: () => unknown) => {
      try {
        f();
        return 'accepted';
      } catch (e) {
        return e instanceof SignatureVerificationError ? e.reason : String(e);
      }
    };
    expect(reason(() => constructEvent(raw, header, 'whsec_other', { nowSeconds: NOW }))).toBe(
      'signature_mismatch',
    );
    expect(
      reason(() =>
        constructEvent(raw.replace('ch_1', 'ch_2'), header, 'whsec_a', { nowSeconds: NOW }),
      ),
    ).toBe('signature_mismatch');
    expect(reason(() => constructEvent(raw, undefined, 'whsec_a', { nowSeconds: NOW }))).toBe(
      'header_missing_or_malformed',
    );
    expect(reason(() => constructEvent(raw, header, 'whsec_a', { nowSeconds: NOW + 301 }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(
      reason(() =>
        constructEvent(raw, header, 'whsec_a', { nowSeconds: NOW + 301, toleranceSeconds: 600 }),
      ),
    ).toBe('accepted');
  });
});
