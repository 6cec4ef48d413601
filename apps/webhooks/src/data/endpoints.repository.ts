import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';

/** An endpoint as a directory event carries it. */
export interface EndpointChange {
  id: string;
  tenantId: string;
  url: string;
  events: string[];
  livemode: boolean;
  version: number;
  secret: string;
}

/** An endpoint's copy: its last change, the secret it replaced while their overlap lasts, and when. */
export interface Endpoint extends EndpointChange {
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const TABLE = 'webhook_endpoints';

function toEndpoint(row: Record<string, unknown>): Endpoint {
  return {
    id: String(row.id),
    tenantId: String(row.tenant_id),
    url: String(row.url),
    events: row.events as string[],
    livemode: row.livemode === true,
    version: row.version as number,
    secret: String(row.secret),
    previousSecret: row.previous_secret === null ? null : String(row.previous_secret),
    previousSecretExpiresAt: row.previous_secret_expires_at as Date | null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

/** The secrets that sign now: the current one, then the previous one while its overlap lasts. */
export function signingSecrets(
  endpoint: Pick<Endpoint, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now: Date,
): string[] {
  const previousValid =
    endpoint.previousSecret !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt.getTime() > now.getTime();
  return previousValid && endpoint.previousSecret !== null
    ? [endpoint.secret, endpoint.previousSecret]
    : [endpoint.secret];
}

/**
 * Applies a directory event: the highest version wins. This service owns rotation (see rotateSecret),
 * so a directory event that repeats the secret it announced before keeps the rotated one; a directory
 * event with a different secret is a rotation made by the gateway, with the same overlap.
 */
export async function applyEndpointChange(
  trx: Tx,
  change: EndpointChange,
  now: Date,
  overlapMs: number,
): Promise<void> {
  const existing = await trx(TABLE).where({ id: change.id }).forUpdate().first();
  if (existing === undefined) {
    await trx(TABLE)
      .insert({
        id: change.id,
        tenant_id: change.tenantId,
        url: change.url,
        events: JSON.stringify(change.events),
        livemode: change.livemode,
        version: change.version,
        secret: change.secret,
        directory_secret: change.secret,
        created_at: now,
        updated_at: now,
      })
      .onConflict('id')
      .ignore();
    return;
  }
  if ((existing.version as number) >= change.version) return;
  const secretChanged = change.secret !== existing.directory_secret;
  await trx(TABLE)
    .where({ id: change.id })
    .update({
      url: change.url,
      events: JSON.stringify(change.events),
      livemode: change.livemode,
      version: change.version,
      updated_at: now,
      ...(secretChanged
        ? {
            secret: change.secret,
            directory_secret: change.secret,
            previous_secret: existing.secret,
            previous_secret_expires_at: new Date(now.getTime() + overlapMs),
          }
        : {}),
    });
}

/** The key of a tenant's endpoints in one environment, in `endpointsOf`'s answer. */
export const endpointsKey = (scope: { tenantId: string; livemode: boolean }): string =>
  `${scope.tenantId}/${scope.livemode}`;

/** The endpoints of each tenant and environment asked for (by `endpointsKey`), in one read, by id. */
export async function endpointsOf(
  q: Knex | Tx,
  scopes: ReadonlyArray<{ tenantId: string; livemode: boolean }>,
): Promise<Map<string, Endpoint[]>> {
  const found = new Map<string, Endpoint[]>();
  if (scopes.length === 0) return found;
  const rows: Record<string, unknown>[] = await q(TABLE)
    .whereIn(
      ['tenant_id', 'livemode'],
      scopes.map((s) => [s.tenantId, s.livemode]),
    )
    .orderBy('id');
  for (const endpoint of rows.map(toEndpoint)) {
    const key = endpointsKey(endpoint);
    const list = found.get(key);
    if (list === undefined) found.set(key, [endpoint]);
    else list.push(endpoint);
  }
  return found;
}

export async function findEndpoint(q: Knex | Tx, id: string): Promise<Endpoint | undefined> {
  const row: Record<string, unknown> | undefined = await q(TABLE).where({ id }).first();
  return row === undefined ? undefined : toEndpoint(row);
}

/** Makes `newSecret` the signing secret; the current one keeps signing beside it for `overlapMs`. */
export async function rotateSecret(
  trx: Tx,
  id: string,
  newSecret: string,
  now: Date,
  overlapMs: number,
): Promise<Endpoint | undefined> {
  const existing = await trx(TABLE).where({ id }).forUpdate().first();
  if (existing === undefined) return undefined;
  const [row] = await trx(TABLE)
    .where({ id })
    .update({
      secret: newSecret,
      previous_secret: existing.secret,
      previous_secret_expires_at: new Date(now.getTime() + overlapMs),
      updated_at: now,
    })
    .returning('*');
  return toEndpoint(row);
}
