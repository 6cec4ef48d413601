import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CONFIG, webhooksConfig } from './config';

describe('webhooksConfig', () => {
  it("defaults to contract §7's 10 s per attempt and a back-off from 10 s capped at 1 h", () => {
    expect(webhooksConfig({})).toEqual(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG).toMatchObject({
      attemptTimeoutMs: 10_000,
      retryBaseMs: 10_000,
      retryCapMs: 3_600_000,
    });
  });

  it('takes milliseconds from the environment, within bounds', () => {
    expect(
      webhooksConfig({
        WEBHOOK_RETRY_BASE_MS: '20',
        WEBHOOK_RETRY_CAP_MS: '200',
        WEBHOOK_TIMEOUT_MS: '300',
      }),
    ).toMatchObject({ retryBaseMs: 20, retryCapMs: 200, attemptTimeoutMs: 300 });
    expect(() => webhooksConfig({ WEBHOOK_TIMEOUT_MS: '0' })).toThrow('WEBHOOK_TIMEOUT_MS');
    expect(() => webhooksConfig({ WEBHOOK_CONCURRENCY: '100000' })).toThrow('WEBHOOK_CONCURRENCY');
    expect(() =>
      webhooksConfig({ WEBHOOK_RETRY_BASE_MS: '5000', WEBHOOK_RETRY_CAP_MS: '1000' }),
    ).toThrow('WEBHOOK_RETRY_CAP_MS');
    expect(() => webhooksConfig({ WEBHOOK_RETRY_BASE_MS: 'soon' })).toThrow(
      'WEBHOOK_RETRY_BASE_MS',
    );
    // Every bad variable at once.
    expect(() => webhooksConfig({ WEBHOOK_TIMEOUT_MS: '0', WEBHOOK_CONCURRENCY: 'many' })).toThrow(
      'WEBHOOK_TIMEOUT_MS must be between 1 and 60000, got 0; WEBHOOK_CONCURRENCY must be an integer, got many',
    );
  });
});

describe('the README', () => {
  it("shows integrators the same receiver example as @pgw/webhook-signature's README, which its test runs", () => {
    const block = (path: string) =>
      /<!-- receiver-example:start -->([\s\S]*?)<!-- receiver-example:end -->/.exec(
        readFileSync(path, 'utf8'),
      )?.[1];
    const here = block(join(__dirname, '..', 'README.md'));
    expect(here).toBeDefined();
    expect(here).toBe(
      block(join(__dirname, '..', '..', '..', 'libs', 'webhook-signature', 'README.md')),
    );
  });
});
