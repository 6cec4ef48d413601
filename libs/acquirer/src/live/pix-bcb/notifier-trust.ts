import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { ConfigError, readEnv } from '@pgw/platform-http';

// Who may notify us for one PSP account. The API Pix webhook carries no signature: the PSP authenticates
// itself by the client certificate of the mutual TLS it opens to our webhook URL (the BCB's manual:
// "o PSP recebedor deve usar mTLS na chamada do webhook"). This says which certificates stand for the
// account's PSP: pinned SHA-256 fingerprints of the certificates it presents, or the CA that issues them
// (one level: the CA signs the PSP's certificate itself), or both. Read from the same credentials as the
// rest of the account (LIVE_RAIL_<NAME>_PIX_BCB_WEBHOOK_CLIENT_…); an account without either accepts no
// notification at all, and its payments are confirmed by the pix-payments poll only.

export interface PixNotifierTrust {
  /** Upper-case hex SHA-256 fingerprints of the DER certificates, without separators. */
  fingerprints: ReadonlySet<string>;
  /** CAs whose direct, unexpired, non-CA certificates are the PSP's. */
  authorities: readonly X509Certificate[];
}

const FINGERPRINT = /^[0-9A-F]{64}$/;

/** `AB:CD:…` or `abcd…` → `ABCD…`, or null when it is not a SHA-256 fingerprint. */
export function normalizeFingerprint(value: string): string | null {
  const hex = value.trim().replace(/:/g, '').toUpperCase();
  return FINGERPRINT.test(hex) ? hex : null;
}

/** Every PEM certificate of a bundle. */
function certificatesOf(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}

const NotifierTrustEnv = Type.Object({
  PIX_BCB_WEBHOOK_CLIENT_CERT_SHA256: Type.Optional(Type.String()),
  PIX_BCB_WEBHOOK_CLIENT_CA_FILE: Type.Optional(Type.String()),
});

/**
 * Reads `PIX_BCB_WEBHOOK_CLIENT_CERT_SHA256` (fingerprints, comma-separated) and
 * `PIX_BCB_WEBHOOK_CLIENT_CA_FILE` (a PEM bundle of CAs); null when neither is set. A malformed
 * fingerprint or an unreadable or empty bundle is a ConfigError naming the variable (never a value).
 */
export function readPixNotifierTrust(env: NodeJS.ProcessEnv): PixNotifierTrust | null {
  const vars = readEnv(NotifierTrustEnv, env);
  const pins = vars.PIX_BCB_WEBHOOK_CLIENT_CERT_SHA256 ?? '';
  const caFile = vars.PIX_BCB_WEBHOOK_CLIENT_CA_FILE ?? '';
  const hasPins = pins.trim() !== '';
  const hasCa = caFile !== '';
  if (!hasPins && !hasCa) return null;
  const fingerprints = new Set<string>();
  if (hasPins) {
    for (const pin of pins.split(',')) {
      const normalized = normalizeFingerprint(pin);
      if (normalized === null)
        throw new ConfigError(
          'PIX_BCB_WEBHOOK_CLIENT_CERT_SHA256 must list SHA-256 fingerprints (64 hex digits, colons allowed), comma-separated',
        );
      fingerprints.add(normalized);
    }
  }
  let authorities: X509Certificate[] = [];
  if (hasCa) {
    let pem: string;
    try {
      pem = readFileSync(caFile, 'utf8');
    } catch (error) {
      throw new ConfigError(
        `PIX_BCB_WEBHOOK_CLIENT_CA_FILE: cannot read ${caFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    try {
      authorities = certificatesOf(pem);
    } catch {
      throw new ConfigError(
        `PIX_BCB_WEBHOOK_CLIENT_CA_FILE: ${caFile} holds a certificate that cannot be read`,
      );
    }
    if (authorities.length === 0)
      throw new ConfigError(`PIX_BCB_WEBHOOK_CLIENT_CA_FILE: ${caFile} holds no PEM certificate`);
    if (authorities.some((ca) => !ca.ca))
      throw new ConfigError(
        `PIX_BCB_WEBHOOK_CLIENT_CA_FILE: ${caFile} holds a certificate that is not a CA`,
      );
  }
  return { fingerprints, authorities };
}

function current(cert: X509Certificate, now: Date): boolean {
  return (
    new Date(cert.validFrom).getTime() <= now.getTime() &&
    now.getTime() <= new Date(cert.validTo).getTime()
  );
}

/**
 * Whether a client certificate stands for the PSP: unexpired, and pinned or issued (and signed) by one
 * of the account's CAs, itself unexpired. A CA certificate presented as a client's is never accepted.
 */
export function trustsNotifier(trust: PixNotifierTrust, cert: X509Certificate, now: Date): boolean {
  if (!current(cert, now)) return false;
  if (trust.fingerprints.has(cert.fingerprint256.replace(/:/g, ''))) return true;
  if (cert.ca) return false;
  return trust.authorities.some(
    (ca) => current(ca, now) && cert.checkIssued(ca) && cert.verify(ca.publicKey),
  );
}

/** What the operator API shows of it: pins by their last eight hex digits, CAs by subject. */
export function describeNotifierTrust(trust: PixNotifierTrust | null): string {
  if (trust === null)
    return 'none: notifications are refused; payments are confirmed by the pix-payments poll';
  const parts = [
    ...[...trust.fingerprints].map((f) => `sha256 …${f.slice(-8)}`),
    ...trust.authorities.map((ca) => `ca ${ca.subject.replace(/\n/g, ', ')}`),
  ];
  return parts.join('; ');
}

/**
 * A certificate as an ingress forwards it in a header: the PEM URL-encoded (nginx's
 * `$ssl_client_escaped_cert`, Envoy's and Traefik's), or as it is; null when it is absent or unreadable.
 */
export function certificateFromHeader(
  value: string | string[] | undefined,
): X509Certificate | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  let pem = value.trim();
  // A PEM holds no `%`: one that does is URL-encoded (its dashes and letters stay as they are).
  if (pem.includes('%')) {
    try {
      pem = decodeURIComponent(pem);
    } catch {
      return null;
    }
  }
  try {
    const [first] = certificatesOf(pem);
    return first ?? null;
  } catch {
    return null;
  }
}
