import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A certificate authority made for one test run, and the certificates it signs: the PSP's server
// certificate (for 127.0.0.1) and our client certificate, so that a test runs real mutual TLS. Node's
// crypto can make keys but not X.509 certificates, so the openssl CLI signs them (OpenSSL 3: `req -x509
// -CA` issues a certificate from a CA in one step). Keys are P-256: fast to generate.

export interface Pki {
  dir: string;
  caFile: string;
  ca: Buffer;
  server: { cert: Buffer; key: Buffer };
  client: { certFile: string; keyFile: string; cert: Buffer; key: Buffer };
  /** A client certificate from another CA, which the PSP must refuse. */
  stranger: { certFile: string; keyFile: string };
  /** The stranger's CA (a second authority, e.g. another PSP's). */
  strangerCaFile: string;
  /** The PSP's own client certificate (from the test CA), which it presents when it calls our webhook. */
  pspClient: { certFile: string; keyFile: string; cert: Buffer; key: Buffer };
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * A P-256 certificate `<name>.crt` and its key `<name>.key`, valid for a day: self-signed without an
 * `issuer` (an authority), else signed by that authority.
 */
function certificate(dir: string, name: string, extensions: string[], issuer?: string): void {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '1',
    ...(issuer === undefined ? [] : ['-CA', `${issuer}.crt`, '-CAkey', `${issuer}.key`]),
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-subj',
    `/CN=${name}`,
    ...extensions.flatMap((e) => ['-addext', e]),
  ]);
}

function authority(dir: string, name: string): void {
  certificate(dir, name, [
    'basicConstraints=critical,CA:TRUE',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
}

function leaf(dir: string, ca: string, name: string, extensions: string[]): void {
  certificate(dir, name, ['basicConstraints=critical,CA:FALSE', ...extensions], ca);
}

export function makeThrowawayPki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'pix-bcb-pki-'));
  authority(dir, 'test-ca');
  authority(dir, 'stranger-ca');
  leaf(dir, 'test-ca', 'psp-server', [
    'subjectAltName=IP:127.0.0.1',
    'extendedKeyUsage=serverAuth',
  ]);
  leaf(dir, 'test-ca', 'our-client', ['extendedKeyUsage=clientAuth']);
  leaf(dir, 'stranger-ca', 'stranger-client', ['extendedKeyUsage=clientAuth']);
  leaf(dir, 'test-ca', 'psp-client', ['extendedKeyUsage=clientAuth']);
  const file = (name: string) => join(dir, name);
  const clientCertificate = (name: string) => ({
    certFile: file(`${name}.crt`),
    keyFile: file(`${name}.key`),
    cert: readFileSync(file(`${name}.crt`)),
    key: readFileSync(file(`${name}.key`)),
  });
  return {
    dir,
    caFile: file('test-ca.crt'),
    ca: readFileSync(file('test-ca.crt')),
    server: {
      cert: readFileSync(file('psp-server.crt')),
      key: readFileSync(file('psp-server.key')),
    },
    client: clientCertificate('our-client'),
    stranger: { certFile: file('stranger-client.crt'), keyFile: file('stranger-client.key') },
    strangerCaFile: file('stranger-ca.crt'),
    pspClient: clientCertificate('psp-client'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
