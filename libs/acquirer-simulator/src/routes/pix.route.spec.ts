// The Pix PSP's routes: a charge with its BR Code, paid once, expired on demand or by time.
import { verifyBrCode } from '@pgw/domain';
import { simHarness } from '../testing/sim-harness';

const { acquirer, clock, ref, value } = simHarness();

describe('the Pix routes', () => {
  it('creates a charge with a valid BR Code and txid, pays it once, and refuses to expire a paid one', async () => {
    const reference = ref('pix');
    const pix = value(
      await acquirer.createPixCharge({ reference, amountCents: 4990, expiresInSeconds: 3600 }),
    );
    expect(pix).toMatchObject({
      status: 'active',
      amountCents: 4990,
      expiresAt: '2026-03-01T13:00:00.000Z',
      paidAt: null,
    });
    expect(pix.txid).toMatch(/^[A-Za-z0-9]{26,35}$/);
    const verified = verifyBrCode(pix.qrCode);
    expect(verified.ok).toBe(true);
    expect(pix.qrCode).toContain('540549.90');
    expect(pix.qrCode).toContain(pix.txid);
    expect(
      value(
        await acquirer.createPixCharge({ reference, amountCents: 4990, expiresInSeconds: 3600 }),
      ),
    ).toEqual(pix);
    const paid = value(await acquirer.payPix(reference));
    expect(paid).toMatchObject({ status: 'paid', paidAt: '2026-03-01T12:00:00.000Z' });
    expect(value(await acquirer.payPix(reference))).toEqual(paid);
    expect(await acquirer.expirePix(reference)).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'pix_not_expirable',
    });
  });

  it('expires a charge on demand or when its time has passed, and refuses to pay an expired one', async () => {
    const onDemand = ref('pix');
    value(
      await acquirer.createPixCharge({
        reference: onDemand,
        amountCents: 100,
        expiresInSeconds: 600,
      }),
    );
    expect(value(await acquirer.expirePix(onDemand)).status).toBe('expired');
    expect(await acquirer.payPix(onDemand)).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'pix_not_payable',
    });

    const onTime = ref('pix');
    value(
      await acquirer.createPixCharge({ reference: onTime, amountCents: 100, expiresInSeconds: 60 }),
    );
    clock.set(new Date('2026-03-01T12:01:00Z'));
    try {
      expect(value(await acquirer.getPixCharge(onTime)).status).toBe('expired');
      expect(await acquirer.payPix(onTime)).toMatchObject({
        ok: false,
        kind: 'rejected',
        code: 'pix_not_payable',
      });
    } finally {
      clock.set(new Date('2026-03-01T12:00:00Z'));
    }
  });
});
