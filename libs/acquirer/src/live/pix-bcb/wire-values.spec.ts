import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { centsToReais, PIX_AMOUNT_CENTS_MAX, reaisToCents } from './amounts';
import { refundIdOf, txidOf } from './ids';
import { parsePixNotification } from './notifications';
import { classifyPixTransportError } from './transport';

// The pure parts of the adapter: ids from references, amounts, the webhook body, and what a transport
// error means. The standard's own examples are the fixtures where it has them.

const spec = parse(readFileSync(join(__dirname, 'spec', 'openapi.yaml'), 'utf8')) as {
  components: {
    schemas: Record<string, { pattern?: string }>;
    examples: Record<string, { value: unknown }>;
  };
};
const example = (name: string) => spec.components.examples[name]?.value;

describe('ids derived from our references', () => {
  it('gives every reference a txid and a refund id the standard accepts, always the same for the same reference', () => {
    // Proves determinism (what makes retries idempotent) and conformance to the spec's TxId and DevolucaoId patterns.
    const txidPattern = new RegExp(`^${spec.components.schemas['TxId']?.pattern}$`);
    const refundPattern = new RegExp(`^${spec.components.schemas['DevolucaoId']?.pattern}$`);
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_\-.:]{1,120}$/), (reference) => {
        expect(txidOf(reference)).toMatch(txidPattern);
        expect(refundIdOf(reference)).toMatch(refundPattern);
        expect(txidOf(reference)).toBe(txidOf(reference));
        expect(refundIdOf(reference)).not.toBe(txidOf(reference));
      }),
    );
    expect(txidOf('ch_1')).not.toBe(txidOf('ch1'));
  });
});

describe('amounts', () => {
  it("turns cents into the standard's reais string and back without loss", () => {
    // Proves the round trip over the whole range of the schema's \d{1,10}\.\d{2}.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: PIX_AMOUNT_CENTS_MAX }), (cents) =>
        expect(reaisToCents(centsToReais(cents))).toBe(cents),
      ),
    );
    expect(centsToReais(5)).toBe('0.05');
    expect(centsToReais(12_345)).toBe('123.45');
    expect(reaisToCents('1.5')).toBeNull();
    expect(reaisToCents('-1.00')).toBeNull();
    expect(() => centsToReais(PIX_AMOUNT_CENTS_MAX + 1)).toThrow(RangeError);
  });
});

describe('parsePixNotification', () => {
  it("reads the standard's webhook examples, a refund given as a bare object included", () => {
    // Proves the parser against pixWebhook1 (whose devolucoes is an object, not the array its schema says) and pixWebhook2.
    const parsed = parsePixNotification({ pix: [example('pixWebhook1'), example('pixWebhook2')] });
    expect(parsed).toEqual({
      ok: true,
      pix: [
        {
          endToEndId: 'E12345678202009091221kkkkkkkkkkk',
          txid: 'c3e0e7a4e7f1469a9f782d3d4999343c',
          amountCents: 11_000,
          paidAt: '2020-09-09T20:15:00.358Z',
          refunds: [
            {
              refundId: '123ABC',
              returnId: 'D12345678202009091221abcdf098765',
              status: 'processing',
              amountCents: 1_000,
            },
          ],
        },
        {
          endToEndId: 'E87654321202009091221dfghi123456',
          txid: '971122d8f37211eaadc10242ac120002',
          amountCents: 11_000,
          paidAt: '2020-09-09T20:15:00.358Z',
          refunds: [],
        },
      ],
    });
  });

  it("refuses a body that is not the standard's shape instead of guessing", () => {
    // Proves a malformed notification is refused whole, with the reason.
    expect(
      parsePixNotification({
        pix: [{ endToEndId: 'short', valor: '1.00', horario: '2020-01-01T00:00:00Z' }],
      }),
    ).toMatchObject({ ok: false, reason: expect.stringContaining('/pix/0/endToEndId') });
    expect(
      parsePixNotification({
        pix: [
          {
            endToEndId: 'E12345678202009091221kkkkkkkkkkk',
            valor: '1',
            horario: '2020-01-01T00:00:00Z',
          },
        ],
      }),
    ).toMatchObject({ ok: false });
    expect(parsePixNotification(null)).toMatchObject({ ok: false });
    expect(parsePixNotification({ pix: [] })).toEqual({ ok: true, pix: [] });
  });
});

describe('classifyPixTransportError', () => {
  it('reads a refused TLS session as unavailable, a reset or an abort as unknown outcome', () => {
    // Proves the one rule added to the shared classification: the PSP refusing our certificate means nothing was applied.
    const tls = Object.assign(new Error('tlsv13 alert certificate required'), {
      code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
    });
    expect(classifyPixTransportError(tls)).toMatchObject({ kind: 'unavailable' });
    expect(
      classifyPixTransportError(
        Object.assign(new Error('self signed'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
      ),
    ).toMatchObject({ kind: 'unavailable' });
    expect(
      classifyPixTransportError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })),
    ).toMatchObject({ kind: 'unavailable' });
    expect(
      classifyPixTransportError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })),
    ).toMatchObject({ kind: 'timeout' });
    expect(
      classifyPixTransportError(Object.assign(new Error('aborted'), { name: 'AbortError' })),
    ).toMatchObject({ kind: 'timeout' });
  });
});
