import { isIP } from 'node:net';
import { ConfigError } from '@pgw/platform-http';

// TRUSTED_PROXIES: the hops in front of the gateway (a load balancer, an ingress controller) whose
// X-Forwarded-For the gateway believes. The client's address is then the last one those hops report, and
// the gateway signs it into the principal (clientIp); with none, it is the socket's address. A client's
// own X-Forwarded-For entries are never believed: they come before the trusted hops' entries.

/** proxy-addr's names for the loopback, link-local and private (RFC 1918, fc00::/7) ranges. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrCidr(entry: string): boolean {
  if (RANGE_NAMES.has(entry) || isIP(entry) !== 0) return true;
  const slash = entry.indexOf('/');
  if (slash === -1) return false;
  const version = isIP(entry.slice(0, slash));
  const bits = entry.slice(slash + 1);
  return version !== 0 && /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

/** TRUSTED_PROXIES's text as a list (comma-separated addresses, CIDRs or range names); empty: none. */
export function trustedProxies(list: string): string[] {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    if (!isAddressOrCidr(entry))
      throw new ConfigError(
        `TRUSTED_PROXIES: ${entry} is not an IP address, a CIDR, or one of ${[...RANGE_NAMES].join(', ')}`,
      );
  }
  return entries;
}
