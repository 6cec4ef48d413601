// The permissions of api-v1.md §5, the only names an API key may carry; a key is issued with a subset.
// One list for the gateway (which checks them), the SDK (which offers them to the dashboard) and the tools.
export const PERMISSIONS = [
  'payment_methods:tokenize',
  'charges:create',
  'charges:read',
  'refunds:create',
  'balance:read',
  'receivables:read',
  'settlements:read',
  'chargebacks:read',
  'anticipations:read',
  'anticipations:create',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}
