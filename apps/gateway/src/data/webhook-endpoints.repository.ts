import type { Tx } from '@pgw/platform-db';

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
