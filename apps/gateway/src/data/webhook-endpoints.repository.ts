import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';
import { pageOfRows, toDate, toInt, toStringArray } from './rows';

export interface WebhookEndpoint {
  id: string;
  tenantId: string;
  url: string;
  /** Event kinds of contract §7, or ['*'] for every kind (also those added later). */
  events: string[];
  /**
   * The signing secret (`whsec_`). Unlike an API key it is stored as is: the webhooks service needs it to
   * compute each delivery's HMAC, so a hash would not do.
   */
  secret: string;
  livemode: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export async function insertWebhookEndpoint(trx: Tx, endpoint: WebhookEndpoint): Promise<void> {
  await trx('webhook_endpoints').insert({
    id: endpoint.id,
    tenant_id: endpoint.tenantId,
    url: endpoint.url,
    events: JSON.stringify(endpoint.events),
    secret: endpoint.secret,
    livemode: endpoint.livemode,
    version: endpoint.version,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
  });
}

function fromRow(row: Record<string, unknown>): WebhookEndpoint {
  return {
    id: String(row.id),
    tenantId: String(row.tenant_id),
    url: String(row.url),
    events: toStringArray(row.events, 'webhook_endpoints.events'),
    secret: String(row.secret),
    livemode: row.livemode === true,
    version: toInt(row.version, 'webhook_endpoints.version'),
    createdAt: toDate(row.created_at, 'webhook_endpoints.created_at'),
    updatedAt: toDate(row.updated_at, 'webhook_endpoints.updated_at'),
  };
}

/** The endpoint, locked for the rest of the transaction. */
export async function findWebhookEndpointForUpdate(trx: Tx, id: string): Promise<WebhookEndpoint | null> {
  const row: Record<string, unknown> | undefined = await trx('webhook_endpoints').where({ id }).forUpdate().first();
  return row === undefined ? null : fromRow(row);
}

/** One page of the tenant's endpoints, newest first (a deleted endpoint is gone from the directory). */
export async function listWebhookEndpointsOfTenant(q: Knex | Tx, tenantId: string, page: number, limit: number): Promise<{ data: WebhookEndpoint[]; total: number }> {
  const { rows, total } = await pageOfRows(q, 'webhook_endpoints', { tenant_id: tenantId }, page, limit);
  return { data: rows.map(fromRow), total };
}

export async function deleteWebhookEndpoint(trx: Tx, id: string): Promise<void> {
  await trx('webhook_endpoints').where({ id }).delete();
}
