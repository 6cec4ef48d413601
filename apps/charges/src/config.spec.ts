import { ACQUIRER_TIMEOUT_MS_DEFAULT } from '@pgw/acquirer';
import { chargesConfig } from './config';

describe('chargesConfig', () => {
  it('has a default for every setting, and no PIX notification listener nor certificate header', () => {
    expect(chargesConfig({})).toEqual({
      recoveryIntervalMs: 10_000,
      recoveryMinAgeMs: 30_000,
      jobMinAgeMs: ACQUIRER_TIMEOUT_MS_DEFAULT,
      batchSizeMax: 500,
      vaultTimeoutMs: 3_000,
      pixNotifyCertHeader: null,
      pixNotifyTls: null,
    });
  });

  it('reads the PIX notification listener, which needs its certificate and key', () => {
    const tls = {
      PIX_NOTIFY_TLS_PORT: '8443',
      PIX_NOTIFY_TLS_CERT_FILE: '/tls/crt',
      PIX_NOTIFY_TLS_KEY_FILE: '/tls/key',
    };
    expect(chargesConfig(tls).pixNotifyTls).toEqual({
      port: 8443,
      host: '0.0.0.0',
      certFile: '/tls/crt',
      keyFile: '/tls/key',
    });
    expect(() => chargesConfig({ PIX_NOTIFY_TLS_PORT: '8443' })).toThrow(
      'PIX_NOTIFY_TLS_CERT_FILE is required; PIX_NOTIFY_TLS_KEY_FILE is required',
    );
    expect(
      chargesConfig({ PIX_NOTIFY_CLIENT_CERT_HEADER: 'X-Client-Cert' }).pixNotifyCertHeader,
    ).toBe('x-client-cert');
    expect(() => chargesConfig({ PIX_NOTIFY_CLIENT_CERT_HEADER: 'authorization' })).toThrow(
      'PIX_NOTIFY_CLIENT_CERT_HEADER',
    );
  });

  it('names every variable out of bounds at once, and keeps the recovery behind the acquirer deadline', () => {
    expect(() =>
      chargesConfig({
        CHARGES_RECOVERY_INTERVAL_MS: '-1',
        CHARGES_BATCH_SIZE_MAX: '0',
        CHARGES_VAULT_TIMEOUT_MS: '0',
        PIX_NOTIFY_TLS_PORT: '70000',
      }),
    ).toThrow(
      'CHARGES_RECOVERY_INTERVAL_MS must be at least 0, got -1; CHARGES_BATCH_SIZE_MAX must be between 1 and 10000, got 0; CHARGES_VAULT_TIMEOUT_MS must be at least 1, got 0; PIX_NOTIFY_TLS_PORT must be between 0 and 65535, got 70000',
    );
    expect(() =>
      chargesConfig({ CHARGES_RECOVERY_MIN_AGE_MS: '1', ACQUIRER_TIMEOUT_MS: '5000' }),
    ).toThrow('CHARGES_RECOVERY_MIN_AGE_MS must not be below ACQUIRER_TIMEOUT_MS');
  });
});
