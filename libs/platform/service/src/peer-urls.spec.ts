import { ConfigError } from '@pgw/platform-http';
import { peerUrlsFromEnv } from './main';

// The peers' URLs as the gateway and each service read them: a service whose variable is unset or empty is
// not part of the deployment; a value that is not an http(s) URL stops the process with the variable named.
describe('peerUrlsFromEnv', () => {
  it('keeps the services whose URL is set, by service name, and leaves out the unset and the empty', () => {
    expect(
      peerUrlsFromEnv({
        VAULT_URL: 'http://vault:8080',
        CHARGES_URL: 'https://charges.internal',
        LEDGER_URL: '',
      }),
    ).toEqual({ vault: 'http://vault:8080', charges: 'https://charges.internal' });
  });

  it('refuses a URL of another scheme as a configuration error naming the variable', () => {
    expect(() => peerUrlsFromEnv({ WEBHOOKS_URL: 'webhooks:8080' })).toThrow(
      new ConfigError('WEBHOOKS_URL must be an http(s) URL, got webhooks:8080'),
    );
  });
});
