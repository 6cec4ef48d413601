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
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function authority(dir: string, name: string): void {
  openssl(dir, [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-keyout', `${name}.key`, '-out', `${name}.crt`, '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]);
}

function leaf(dir: string, ca: string, name: string, extensions: string[]): void {
  openssl(dir, [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`,
    '-keyout', `${name}.key`, '-out', `${name}.crt`, '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:FALSE', ...extensions.flatMap((e) => ['-addext', e]),
  ]);
}

export function makeThrowawayPki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'pix-bcb-pki-'));
  authority(dir, 'test-ca');
  authority(dir, 'stranger-ca');
  leaf(dir, 'test-ca', 'psp-server', ['subjectAltName=IP:127.0.0.1', 'extendedKeyUsage=serverAuth']);
  leaf(dir, 'test-ca', 'our-client', ['extendedKeyUsage=clientAuth']);
  leaf(dir, 'stranger-ca', 'stranger-client', ['extendedKeyUsage=clientAuth']);
  const file = (name: string) => join(dir, name);
  return {
    dir,
    caFile: file('test-ca.crt'),
    ca: readFileSync(file('test-ca.crt')),
    server: { cert: readFileSync(file('psp-server.crt')), key: readFileSync(file('psp-server.key')) },
    client: { certFile: file('our-client.crt'), keyFile: file('our-client.key'), cert: readFileSync(file('our-client.crt')), key: readFileSync(file('our-client.key')) },
    stranger: { certFile: file('stranger-client.crt'), keyFile: file('stranger-client.key') },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
