import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@pgw/platform-http';
import { makeThrowawayPki, type Pki } from '../../testing';
import {
  certificateFromHeader,
  describeNotifierTrust,
  normalizeFingerprint,
  readPixNotifierTrust,
  trustsNotifier,
} from './notifier-trust';

// Which client certificates stand for a PSP on our webhook: pinned fingerprints, or the CA that issues them.
let pki: Pki;
let psp: X509Certificate;
let ours: X509Certificate;
let stranger: X509Certificate;
// Taken once the certificates exist: openssl starts their validity at the second they are signed, so a
// moment read before that (at module load, on a busy machine) falls outside it.
let NOW: Date;

beforeAll(() => {
  pki = makeThrowawayPki();
  NOW = new Date();
  psp = new X509Certificate(pki.pspClient.cert);
  ours = new X509Certificate(pki.client.cert);
  stranger = new X509Certificate(readFileSync(pki.stranger.certFile));
});
afterAll(() => pki.remove());

describe('readPixNotifierTrust and trustsNotifier', () => {
  it('Proves a pinned fingerprint admits that certificate only, in either spelling', () => {
    const trust = readPixNotifierTrust({
      PIX_BCB_WEBHOOK_CLIENT_CERT_SHA256: ` ${psp.fingerprint256.toLowerCase()} ,${'AB'.repeat(32)}`,
    });
    expect(trust).not.toBeNull();
    expect(trustsNotifier(trust!, psp, NOW)).toBe(true);
    expect(trustsNotifier(trust!, ours, NOW)).toBe(false);
    expect(trustsNotifier(trust!, stranger, NOW)).toBe(false);
    expect(normalizeFingerprint(psp.fingerprint256)).toBe(psp.fingerprint256.replace(/:/g, ''));
  });

  it("Proves a CA admits the certificates it issued and signed, not another CA's, not the CA itself, not outside their validity", () => {
    const trust = readPixNotifierTrust({ PIX_BCB_WEBHOOK_CLIENT_CA_FILE: pki.caFile })!;
    expect(trustsNotifier(trust, psp, NOW)).toBe(true);
    expect(trustsNotifier(trust, stranger, NOW)).toBe(false);
    expect(trustsNotifier(trust, new X509Certificate(pki.ca), NOW)).toBe(false);
    // The throwaway certificates are valid for one day.
    expect(trustsNotifier(trust, psp, new Date(NOW.getTime() + 3 * 86_400_000))).toBe(false);
    expect(
      trustsNotifier(
        readPixNotifierTrust({ PIX_BCB_WEBHOOK_CLIENT_CA_FILE: pki.strangerCaFile })!,
        stranger,
        NOW,
      ),
    ).toBe(true);
  });

  it('Proves an account without either variable trusts nobody, and bad settings are refused by the variable at fault', () => {
    expect(readPixNotifierTrust({})).toBeNull();
    expect(describeNotifierTrust(null)).toMatch(/^none/);
    expect(() =>
      readPixNotifierTrust({ PIX_BCB_WEBHOOK_CLIENT_CERT_SHA256: 'not-a-fingerprint' }),
    ).toThrow(
      new ConfigError(
        'PIX_BCB_WEBHOOK_CLIENT_CERT_SHA256 must list SHA-256 fingerprints (64 hex digits, colons allowed), comma-separated',
      ),
    );
    expect(() =>
      readPixNotifierTrust({ PIX_BCB_WEBHOOK_CLIENT_CA_FILE: join(pki.dir, 'missing.crt') }),
    ).toThrow(/PIX_BCB_WEBHOOK_CLIENT_CA_FILE: cannot read/);
    // A leaf is not an authority.
    expect(() =>
      readPixNotifierTrust({ PIX_BCB_WEBHOOK_CLIENT_CA_FILE: pki.pspClient.certFile }),
    ).toThrow(/is not a CA/);
    const empty = join(pki.dir, 'empty.pem');
    writeFileSync(empty, 'nothing here');
    expect(() => readPixNotifierTrust({ PIX_BCB_WEBHOOK_CLIENT_CA_FILE: empty })).toThrow(
      /holds no PEM certificate/,
    );
    expect(
      describeNotifierTrust(
        readPixNotifierTrust({
          PIX_BCB_WEBHOOK_CLIENT_CA_FILE: pki.caFile,
          PIX_BCB_WEBHOOK_CLIENT_CERT_SHA256: psp.fingerprint256,
        }),
      ),
    ).toBe(`sha256 …${psp.fingerprint256.replace(/:/g, '').slice(-8)}; ca CN=test-ca`);
  });
});

describe('certificateFromHeader', () => {
  it('Proves it reads the URL-encoded PEM an ingress forwards, or a plain one, and nothing else', () => {
    const pem = pki.pspClient.cert.toString('utf8');
    expect(certificateFromHeader(encodeURIComponent(pem))?.fingerprint256).toBe(psp.fingerprint256);
    expect(certificateFromHeader(pem)?.fingerprint256).toBe(psp.fingerprint256);
    for (const value of [
      undefined,
      '',
      ['a', 'b'],
      'garbage',
      '%E0%A4%A',
      encodeURIComponent('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'),
    ])
      expect(certificateFromHeader(value)).toBeNull();
  });
});
