// Contract §7: a webhook target that is, or resolves at delivery time to, a loopback, private, link-local,
// unique-local or metadata address is refused, unless the deployment allows private targets
// (WEBHOOK_ALLOW_PRIVATE_TARGETS=1, the all-in-one's default). One table, used by the operator route that
// registers endpoints (the literal address) and by the delivery (every address the name resolves to).
import { BlockList, isIP } from 'node:net';

const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT (shared address space)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64 of IPv4 (checked again as IPv4 below)
  ['2001:db8::', 32], // documentation
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** An IPv4 address carried inside IPv6 (mapped ::ffff:a.b.c.d, or NAT64 64:ff9b::/96), as IPv4; else null. */
function embeddedIpv4(address: string): string | null {
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1] ?? null;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const high = parseInt(hex[1] ?? '0', 16);
  const low = parseInt(hex[2] ?? '0', 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Whether an IP address (v4 or v6, brackets allowed) is one a webhook may not reach. Not an IP: false. */
export function isBlockedAddress(raw: string): boolean {
  const address = raw.replace(/^\[|\]$/g, '').toLowerCase();
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== null) return BLOCKED.check(v4, 'ipv4');
    return BLOCKED.check(address, 'ipv6');
  }
  return BLOCKED.check(address, 'ipv4');
}

/** Host names that are the local machine or a cloud's metadata service by definition. */
const BLOCKED_NAMES =
  /^(localhost|localhost\.localdomain|metadata\.google\.internal|metadata)\.?$|\.localhost\.?$/i;

/**
 * Why a webhook URL may not be registered, or null. Checks what the URL itself says (an address literal,
 * a local name, the scheme a live endpoint needs); a name's addresses are checked when it is delivered to.
 */
export function webhookUrlProblem(
  url: string,
  options: { livemode: boolean; allowPrivateTargets: boolean },
): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (options.livemode && parsed.protocol !== 'https:') return 'a live endpoint must use https://';
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an http(s) URL';
  if (options.allowPrivateTargets) return null;
  const host = parsed.hostname;
  if (isBlockedAddress(host) || BLOCKED_NAMES.test(host)) {
    return `${host} is a loopback, private, link-local, unique-local or metadata address; webhooks may not reach it`;
  }
  return null;
}
