// The permissions of api-v1.md §5, the only names a key may carry. A key is issued with a subset.
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
