// The bank's boleto routes: a slip with valid FEBRABAN check digits, paid, refused for a past due date.
import {
  barcodeFromDigitableLine,
  dueDateFactor,
  isValidBarcode,
  isValidDigitableLine,
  readBarcode,
} from '@pgw/domain';
import { simHarness } from '../testing/sim-harness';

const { acquirer, ref, value } = simHarness();

describe('the boleto routes', () => {
  it('registers a slip whose barcode and digitable line carry valid FEBRABAN check digits, the amount and the post-2025 factor', async () => {
    const reference = ref('boleto');
    const boleto = value(
      await acquirer.registerBoleto({ reference, amountCents: 123456, dueDate: '2026-03-10' }),
    );
    expect(boleto).toMatchObject({
      status: 'registered',
      dueDate: '2026-03-10',
      amountCents: 123456,
      paidAt: null,
    });
    expect(isValidBarcode(boleto.barcode)).toBe(true);
    expect(isValidDigitableLine(boleto.digitableLine)).toBe(true);
    expect(barcodeFromDigitableLine(boleto.digitableLine)).toBe(boleto.barcode);
    const parts = readBarcode(boleto.barcode);
    expect(parts).toMatchObject({
      bankCode: '237',
      currencyCode: '9',
      amountCents: 123456,
      dueDateFactor: dueDateFactor('2026-03-10'),
    });
    // 2025-02-22 restarted the factor at 1000: 2026-03-10 is 381 days later.
    expect(parts?.dueDateFactor).toBe(1381);
    expect(
      value(
        await acquirer.registerBoleto({ reference, amountCents: 123456, dueDate: '2026-03-10' }),
      ),
    ).toEqual(boleto);
    expect(
      await acquirer.registerBoleto({ reference, amountCents: 123457, dueDate: '2026-03-10' }),
    ).toMatchObject({ kind: 'rejected', code: 'reference_reused' });
    const paid = value(await acquirer.payBoleto(reference));
    expect(paid).toMatchObject({
      status: 'paid',
      paidAt: '2026-03-01T12:00:00.000Z',
      barcode: boleto.barcode,
    });
    expect(value(await acquirer.payBoleto(reference))).toEqual(paid);
    expect(value(await acquirer.getBoleto(reference))).toEqual(paid);
  });

  it('refuses a due date in the past', async () => {
    expect(
      await acquirer.registerBoleto({
        reference: ref('boleto'),
        amountCents: 100,
        dueDate: '2026-02-28',
      }),
    ).toMatchObject({
      ok: false,
      kind: 'rejected',
      code: 'boleto_due_date_invalid',
    });
  });
});
