import type { Tx } from '@pgw/platform-db';
import { tableReads } from './queries';

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
    events: row.events as string[],
    secret: String(row.secret),
    livemode: row.livemode === true,
    version: row.version as number,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

const webhookEndpoints = tableReads('webhook_endpoints', fromRow);

/** The endpoint, locked for the rest of the transaction. */
export async function findWebhookEndpointForUpdate(
  trx: Tx,
  id: string,
): Promise<WebhookEndpoint | null> {
  return webhookEndpoints.find(trx, id, { forUpdate: true });
}

/** One page of the tenant's endpoints, newest first (a deleted endpoint is gone from the directory). */
export const listWebhookEndpointsOfTenant = webhookEndpoints.pageOfTenant;

export async function deleteWebhookEndpoint(trx: Tx, id: string): Promise<void> {
  await trx('webhook_endpoints').where({ id }).delete();
}
