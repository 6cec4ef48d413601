import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ConfigError } from '@pgw/platform-http';
import { BCB_PIX_SCOPES_DEFAULT, readBcbPixConfig, readBcbPixTlsMaterial } from './config';

// One PSP account's configuration from PIX_BCB_*: secrets from files, and no secret in any error or dump.

const SECRET = 'file-secret-9c1d2e3f4a5b6c7d';
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pix-bcb-config-'));
  writeFileSync(join(dir, 'secret'), `${SECRET}\n`);
  writeFileSync(
    join(dir, 'cert.pem'),
    '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  );
  writeFileSync(
    join(dir, 'key.pem'),
    '-----BEGIN PRIVATE KEY-----\nKEYMATERIAL123\n-----END PRIVATE KEY-----\n',
  );
  env = {
    PIX_BCB_BASE_URL: 'https://pix.psp.example/api/v2/',
    PIX_BCB_TOKEN_URL: 'https://oauth.psp.example/oauth/token',
    PIX_BCB_CLIENT_ID: 'client-1',
    PIX_BCB_CLIENT_SECRET_FILE: join(dir, 'secret'),
    PIX_BCB_CERT_FILE: join(dir, 'cert.pem'),
    PIX_BCB_KEY_FILE: join(dir, 'key.pem'),
    PIX_BCB_CHAVE: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
    PIX_BCB_MERCHANT_NAME: 'Loja Exemplo',
    PIX_BCB_MERCHANT_CITY: 'Sao Paulo',
  };
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readBcbPixConfig', () => {
  it('reads an account from the environment, the client secret from its file, with the default deadline and scopes', () => {
    // Proves the typed config a deployment gets from PIX_BCB_* and mounted files.
    const config = readBcbPixConfig(env);
    expect(config).toMatchObject({
      baseUrl: 'https://pix.psp.example/api/v2',
      tokenUrl: 'https://oauth.psp.example/oauth/token',
      clientId: 'client-1',
      scopes: BCB_PIX_SCOPES_DEFAULT,
      caFile: null,
      chave: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
      timeoutMs: 3_000,
    });
    expect(config.clientSecret.expose()).toBe(SECRET);
    expect(readBcbPixTlsMaterial(config).key.expose().toString('utf8')).toContain('KEYMATERIAL123');
  });

  it('keeps the secret and the private key out of JSON, inspect and string forms', () => {
    // Proves a config logged whole (by mistake) shows no secret.
    const config = readBcbPixConfig(env);
    const dumps = [
      JSON.stringify(config),
      inspect(config, { depth: 10 }),
      `${config.clientSecret}`,
      inspect(readBcbPixTlsMaterial(config), { depth: 10 }),
    ].join('\n');
    expect(dumps).not.toContain(SECRET);
    expect(dumps).not.toContain('KEYMATERIAL123');
  });

  it('refuses what cannot work, naming the variable and never the secret', () => {
    // Proves each refusal is a ConfigError whose message says what to fix and holds no secret value.
    const cases: Array<[NodeJS.ProcessEnv, RegExp]> = [
      [
        { ...env, PIX_BCB_BASE_URL: 'http://pix.psp.example/api/v2' },
        /PIX_BCB_BASE_URL must be an https URL/,
      ],
      [{ ...env, PIX_BCB_TOKEN_URL: 'not a url' }, /PIX_BCB_TOKEN_URL must be an absolute URL/],
      [
        { ...env, PIX_BCB_CLIENT_SECRET: SECRET },
        /exactly one of PIX_BCB_CLIENT_SECRET_FILE and PIX_BCB_CLIENT_SECRET/,
      ],
      [
        { ...env, PIX_BCB_CLIENT_SECRET_FILE: join(dir, 'missing') },
        /PIX_BCB_CLIENT_SECRET_FILE: cannot read .*missing \(ENOENT\)/,
      ],
      [{ ...env, PIX_BCB_CHAVE: 'x'.repeat(78) }, /PIX_BCB_CHAVE is longer than 77/],
      [{ ...env, PIX_BCB_TIMEOUT_MS: '0' }, /PIX_BCB_TIMEOUT_MS must be between 1 and 60000/],
      [{ ...env, PIX_BCB_CLIENT_ID: '' }, /PIX_BCB_CLIENT_ID is required/],
    ];
    for (const [bad, message] of cases) {
      let error: unknown;
      try {
        readBcbPixConfig(bad);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain(SECRET);
    }
    const inline = { ...env, PIX_BCB_CLIENT_SECRET_FILE: '', PIX_BCB_CLIENT_SECRET: SECRET };
    expect(readBcbPixConfig(inline).clientSecret.expose()).toBe(SECRET);
    expect(() =>
      readBcbPixTlsMaterial({ ...readBcbPixConfig(env), keyFile: join(dir, 'nope.pem') }),
    ).toThrow(/PIX_BCB_KEY_FILE: cannot read/);
  });
});
