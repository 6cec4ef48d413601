import { isBlockedAddress, webhookUrlProblem } from './webhook-target';

describe('webhook targets (contract §7)', () => {
  // Proves every class of address the contract names is refused, in every spelling, and public ones are not.
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['0.0.0.0', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['100.64.0.1', true],
    ['169.254.169.254', true],
    ['::1', true],
    ['[::1]', true],
    ['::', true],
    ['fd00::1', true],
    ['fc12:3456::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:169.254.169.254', true],
    ['64:ff9b::a9fe:a9fe', true],
    ['8.8.8.8', false],
    ['172.32.0.1', false],
    ['100.128.0.1', false],
    ['2606:4700:4700::1111', false],
    ['::ffff:8.8.8.8', false],
    ['example.com', false],
  ])('%s blocked: %s', (address, blocked) => {
    expect(isBlockedAddress(address)).toBe(blocked);
  });

  // Proves registration refuses what the URL itself says, allows it when the deployment allows private targets, and live needs https.
  it('judges a URL at registration', () => {
    const strict = { livemode: false, allowPrivateTargets: false };
    expect(webhookUrlProblem('http://127.0.0.1:3000/hooks', strict)).toMatch(
      /127\.0\.0\.1 is a loopback, private/,
    );
    expect(webhookUrlProblem('http://[::1]/hooks', strict)).toMatch(/is a loopback/);
    expect(webhookUrlProblem('http://169.254.169.254/latest/meta-data', strict)).toMatch(
      /metadata/,
    );
    expect(webhookUrlProblem('http://localhost:3000/', strict)).toMatch(/localhost is a loopback/);
    expect(webhookUrlProblem('http://api.localhost/', strict)).toMatch(/is a loopback/);
    expect(webhookUrlProblem('http://2130706433/', strict)).toMatch(/127\.0\.0\.1 is a loopback/);
    expect(webhookUrlProblem('https://hooks.example.com/x', strict)).toBeNull();
    expect(
      webhookUrlProblem('http://127.0.0.1:3000/hooks', {
        livemode: false,
        allowPrivateTargets: true,
      }),
    ).toBeNull();
    expect(
      webhookUrlProblem('http://hooks.example.com/x', {
        livemode: true,
        allowPrivateTargets: true,
      }),
    ).toBe('a live endpoint must use https://');
  });
});
