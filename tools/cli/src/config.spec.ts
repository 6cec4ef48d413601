import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configPath, maskSecret, readConfig, writeConfig } from './config';

describe('the CLI config file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pgw-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lives under $XDG_CONFIG_HOME, else ~/.config', () => {
    // Proves the XDG base directory rule the README states.
    expect(configPath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/pgw/config.json');
    expect(configPath({ HOME: '/home/u' })).toMatch(/\/\.config\/pgw\/config\.json$/);
  });

  it('is written 0600 even over a file that was readable by others, and read back', () => {
    // Proves a key never sits in a world-readable file, whatever the umask and whatever was there before.
    const path = join(dir, 'pgw', 'config.json');
    writeConfig(path, { base_url: 'http://x' });
    writeFileSync(path, '{"api_key":"sk_test_old"}', { mode: 0o644 });
    writeConfig(path, { api_key: 'sk_test_abcdefghijklmnop1234', base_url: 'http://127.0.0.1:9' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'pgw')).mode & 0o077).toBe(0);
    expect(readConfig(path)).toEqual({
      api_key: 'sk_test_abcdefghijklmnop1234',
      base_url: 'http://127.0.0.1:9',
    });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      api_key: 'sk_test_abcdefghijklmnop1234',
      base_url: 'http://127.0.0.1:9',
    });
  });

  it('reads a missing file as empty, and says which file is broken', () => {
    expect(readConfig(join(dir, 'none.json'))).toEqual({});
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{');
    expect(() => readConfig(broken)).toThrow(`${broken} is not JSON`);
  });

  it('masks a secret to its prefix and last four characters', () => {
    expect(maskSecret('sk_test_abcdefghijklmnop1234')).toBe('sk_test_…1234');
    expect(maskSecret('adm_0123456789abcdefXYZW')).toBe('adm_…XYZW');
  });
});
