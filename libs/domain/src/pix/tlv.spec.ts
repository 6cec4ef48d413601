import { parseTlv, tlv } from './tlv';

describe('parseTlv', () => {
  it('splits top-level fields by their declared lengths', () => {
    expect(parseTlv('000201' + '0503***')).toEqual({
      ok: true,
      fields: [
        { id: '00', value: '01' },
        { id: '05', value: '***' },
      ],
    });
    expect(parseTlv('')).toEqual({ ok: true, fields: [] });
  });

  it('reports a length that runs past the end, a short header and a non-digit header', () => {
    expect(parseTlv('000301')).toMatchObject({ ok: false, offset: 0 });
    expect(parseTlv('00020')).toMatchObject({ ok: false, offset: 0 });
    expect(parseTlv('0002010')).toMatchObject({ ok: false, reason: 'truncated header', offset: 6 });
    expect(parseTlv('AB0201')).toMatchObject({ ok: false, offset: 0 });
  });

  it('counts lengths in UTF-8 bytes, as readers do', () => {
    expect(parseTlv('5904SÃO')).toEqual({ ok: true, fields: [{ id: '59', value: 'SÃO' }] });
    expect(parseTlv('5903SÃO').ok).toBe(false);
  });
});

describe('tlv', () => {
  it('writes the byte length with two digits and refuses values over 99 bytes', () => {
    expect(tlv('53', '986')).toBe('5303986');
    expect(tlv('59', 'SÃO')).toBe('5904SÃO');
    expect(() => tlv('26', 'x'.repeat(100))).toThrow(RangeError);
    expect(() => tlv('5', 'x')).toThrow(RangeError);
  });
});
