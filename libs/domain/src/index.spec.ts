import * as domain from './index';

describe('@pgw/domain entry point', () => {
  it('resolves through the workspace alias and exposes one function from every module', () => {
    expect(domain.allocateEvenly(10_000, 3)).toEqual([3334, 3333, 3333]);
    expect(
      domain.allocateSplit(100, [{ recipientSellerId: 'seller_a', amountCents: 40 }]),
    ).toMatchObject({ ok: true, remainderCents: 60 });
    expect(domain.normalizeDocument('123.456.789-09')).toEqual({
      digits: '12345678909',
      type: 'cpf',
    });
    expect(domain.detectBrand('4111111111111111')).toBe('visa');
    expect(domain.crc16CcittFalse('123456789')).toBe('29B1');
    expect(domain.dueDateFactor('2025-02-22')).toBe(1000);
    expect(domain.isId('ch_', domain.newId('ch_'))).toBe(true);
    expect(domain.addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect([domain.isPermission('charges:read'), domain.isPermission('charges:delete')]).toEqual([
      true,
      false,
    ]);
  });
});
