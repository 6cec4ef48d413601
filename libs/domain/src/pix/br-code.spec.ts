import fc from 'fast-check';
import { buildBrCode, verifyBrCode } from './br-code';
import { crc16CcittFalse } from './crc16';
import { parseTlv } from './tlv';

// brazil-payments.md §4.9: real BR Codes whose CRC was re-computed independently.
const STATIC_WITH_AMOUNT =
  '00020126360014BR.GOV.BCB.PIX0114+5599981916389520400005303986540549.005802BR5910AGCPARKING6006BRASIL62150511AGC480F35B363041A95';
const STATIC_NO_AMOUNT =
  '00020126580014br.gov.bcb.pix01363e2c6f86-3e5a-4abe-9200-894843d024545204000053039865802BR5925LORRAN SALDANHA DE OLIVEI6009Sao Paulo62290525REC68F0153D322FA4078750486304CE4F';
const DYNAMIC =
  '00020101021226990014br.gov.bcb.pix2577pix-h.bpp.com.br/23114447/qrs1/v2/011Q0PuArnNb5VzolFm8H9X0A7yQb5Ayi6wZ2Koj6RX52040000530398654043.335802BR5911Krusty_Krab6009Sao_Paulo62290525cac964d74db74c479add4eabc63047932';

/** Replaces a substring and recomputes the CRC, to derive the exact string our builder must produce. */
const withCrc = (body: string): string => body + crc16CcittFalse(body);
const bodyOf = (code: string): string => code.slice(0, -4);

describe('verifyBrCode', () => {
  it('accepts the three golden vectors', () => {
    for (const code of [STATIC_WITH_AMOUNT, STATIC_NO_AMOUNT, DYNAMIC])
      expect(verifyBrCode(code)).toMatchObject({ ok: true });
  });

  it('rejects a wrong CRC, an edited payload, a broken length and a missing field', () => {
    expect(verifyBrCode(STATIC_WITH_AMOUNT.slice(0, -4) + '1A96')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('CRC'),
    });
    expect(verifyBrCode(STATIC_WITH_AMOUNT.replace('49.00', '99.00'))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('CRC'),
    });
    expect(
      verifyBrCode(withCrc(bodyOf(STATIC_WITH_AMOUNT).replace('5910AGCPARKING', '5911AGCPARKING'))),
    ).toMatchObject({ ok: false });
    expect(verifyBrCode(withCrc(bodyOf(STATIC_WITH_AMOUNT).replace('5802BR', '')))).toEqual({
      ok: false,
      reason: 'field 58 missing',
    });
    expect(
      verifyBrCode(withCrc(bodyOf(DYNAMIC).replace('0014br.gov.bcb.pix', '0014br.gov.bcb.pax'))),
    ).toMatchObject({ ok: false, reason: expect.stringContaining('GUI') });
    expect(verifyBrCode('')).toMatchObject({ ok: false });
  });

  it('rejects any single changed character of a golden vector', () => {
    fc.assert(
      fc.property(fc.nat(), fc.constantFrom(...'0123456789ABCDEFXYZ.'), (position, char) => {
        const i = position % DYNAMIC.length;
        fc.pre(DYNAMIC[i] !== char);
        expect(verifyBrCode(DYNAMIC.slice(0, i) + char + DYNAMIC.slice(i + 1)).ok).toBe(false);
      }),
    );
  });
});

describe('buildBrCode', () => {
  it('reproduces the static golden vector field for field (our GUI is the lower-case spelling)', () => {
    const built = buildBrCode({
      merchantName: 'AGCPARKING',
      merchantCity: 'BRASIL',
      amountCents: 4900,
      txid: 'AGC480F35B3',
      pixKey: '+5599981916389',
    });
    expect(built).toBe(
      withCrc(bodyOf(STATIC_WITH_AMOUNT).replace('BR.GOV.BCB.PIX', 'br.gov.bcb.pix')),
    );
  });

  it('reproduces the dynamic golden vector, with name and city sanitised to upper-case ASCII', () => {
    const built = buildBrCode({
      merchantName: 'Krusty_Krab',
      merchantCity: 'São_Paulo',
      amountCents: 333,
      txid: 'cac964d74db74c479add4eabc',
      locationUrl:
        'https://pix-h.bpp.com.br/23114447/qrs1/v2/011Q0PuArnNb5VzolFm8H9X0A7yQb5Ayi6wZ2Koj6RX',
    });
    expect(built).toBe(
      withCrc(
        bodyOf(DYNAMIC).replace('Krusty_Krab', 'KRUSTY KRAB').replace('Sao_Paulo', 'SAO PAULO'),
      ),
    );
  });

  it('truncates the name to 25 and the city to 15 characters and drops accents', () => {
    const built = buildBrCode({
      merchantName: 'Lojinha da Conceição e Filhos Ltda',
      merchantCity: 'São José dos Campos',
      amountCents: 1,
      txid: '***',
      pixKey: 'a@b.co',
    });
    const fields = parseTlv(built);
    expect(fields).toMatchObject({ ok: true });
    if (!fields.ok) return;
    expect(fields.fields.find((f) => f.id === '59')?.value).toBe('LOJINHA DA CONCEICAO E FI');
    expect(fields.fields.find((f) => f.id === '60')?.value).toBe('SAO JOSE DOS CA');
    expect(fields.fields.find((f) => f.id === '54')?.value).toBe('0.01');
    expect(fields.fields.find((f) => f.id === '62')?.value).toBe('0503***');
  });

  it('refuses inputs it cannot encode', () => {
    const base = {
      merchantName: 'LOJA',
      merchantCity: 'RIO',
      amountCents: 100,
      txid: 'abc',
      pixKey: 'k',
    };
    expect(() => buildBrCode({ ...base, amountCents: 0 })).toThrow(RangeError);
    expect(() => buildBrCode({ ...base, txid: 'a'.repeat(26) })).toThrow(RangeError);
    expect(() => buildBrCode({ ...base, txid: 'has-hyphen' })).toThrow(RangeError);
    expect(() => buildBrCode({ ...base, merchantName: '!!!' })).toThrow(RangeError);
    expect(() => buildBrCode({ ...base, pixKey: 'k'.repeat(80) })).toThrow(RangeError);
  });

  it('always builds codes that verify and carry the amount in dot-decimal', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.string({ maxLength: 30 }),
        fc.integer({ min: 1, max: 99_999_999_99 }),
        fc.stringMatching(/^[A-Za-z0-9]{1,25}$/),
        fc.boolean(),
        (nameTail, city, amountCents, txid, dynamic) => {
          const common = {
            merchantName: `A${nameTail}`,
            merchantCity: `C${city}`,
            amountCents,
            txid,
          };
          const code = dynamic
            ? buildBrCode({ ...common, locationUrl: 'psp.example/qr/v2/abc' })
            : buildBrCode({ ...common, pixKey: '12345678909' });
          const verified = verifyBrCode(code);
          expect(verified.ok).toBe(true);
          if (!verified.ok) return;
          expect(code).toMatch(/^[\x20-\x7E]+$/);
          const amount = verified.fields.find((f) => f.id === '54')?.value;
          expect(Math.round(Number(amount) * 100)).toBe(amountCents);
          expect(amount).toMatch(/^\d+\.\d{2}$/);
          expect(verified.fields.some((f) => f.id === '01' && f.value === '12')).toBe(dynamic);
        },
      ),
    );
  });
});
