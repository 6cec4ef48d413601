import { directoryKey } from '@pgw/contracts';
import { emit } from '@pgw/platform-bus';
import type { Db, Tx } from '@pgw/platform-db';
import type { PricingPlan } from '../data/pricing-plans.repository';
import { sellerTerms, type Seller } from '../data/sellers.repository';
import type { Tenant } from '../data/tenants.repository';
import type { WebhookEndpoint } from '../data/webhook-endpoints.repository';

// Directory events carry the whole state and a version that grows with each change, so a consumer keeps
// the highest version it has seen and needs no other ordering. They are keyed `<tenant>/<entity>`
// (directoryKey): every event of one tenant's directory (a plan, then a seller that overrides to it) lands
// on one partition, in order, and the compacted topic keeps the last event of each entity.
// Each is written to the outbox in the transaction of the row change it announces.

const PRODUCER = 'gateway';

export async function publishTenantChanged(
  db: Db,
  trx: Tx,
  tenant: Tenant,
  requestId: string,
): Promise<void> {
  await emit(db, trx, {
    type: 'gateway.tenant-changed.v1',
    key: tenant.id,
    producer: PRODUCER,
    tenantId: tenant.id,
    livemode: null,
    requestId,
    body: {
      tenant_id: tenant.id,
      name: tenant.name,
      treasury_available_cash_cents: tenant.treasuryAvailableCashCents,
      version: tenant.version,
    },
  });
}

export async function publishSellerChanged(
  db: Db,
  trx: Tx,
  seller: Seller,
  requestId: string,
): Promise<void> {
  await emit(db, trx, {
    type: 'gateway.seller-changed.v1',
    key: directoryKey(seller.tenantId, seller.id),
    producer: PRODUCER,
    tenantId: seller.tenantId,
    livemode: null,
    requestId,
    body: {
      seller_id: seller.id,
      tenant_id: seller.tenantId,
      name: seller.name,
      ...sellerTerms(seller),
      version: seller.version,
    },
  });
}

export async function publishPricingPlanChanged(
  db: Db,
  trx: Tx,
  plan: PricingPlan,
  requestId: string,
): Promise<void> {
  await emit(db, trx, {
    type: 'gateway.pricing-plan-changed.v1',
    key: directoryKey(plan.tenantId, plan.id),
    producer: PRODUCER,
    tenantId: plan.tenantId,
    livemode: null,
    requestId,
    body: {
      pricing_plan_id: plan.id,
      tenant_id: plan.tenantId,
      name: plan.name,
      fee_bps_per_month: plan.feeBpsPerMonth,
      settlement_delay_days: plan.settlementDelayDays,
      mdr_bps: { ...plan.mdrBps },
      is_default: plan.isDefault,
      version: plan.version,
    },
  });
}

/**
 * On gateway.webhook-endpoints (v2), which only the webhooks service consumes: the signing secret never
 * reaches the other services, which all read gateway.directory (where v1 carried it).
 */
export async function publishWebhookEndpointChanged(
  db: Db,
  trx: Tx,
  endpoint: WebhookEndpoint,
  requestId: string,
): Promise<void> {
  await emit(db, trx, {
    type: 'gateway.webhook-endpoint-changed.v2',
    key: directoryKey(endpoint.tenantId, endpoint.id),
    producer: PRODUCER,
    tenantId: endpoint.tenantId,
    livemode: endpoint.livemode,
    requestId,
    body: {
      webhook_endpoint_id: endpoint.id,
      tenant_id: endpoint.tenantId,
      url: endpoint.url,
      events: [...endpoint.events],
      secret: endpoint.secret,
      livemode: endpoint.livemode,
      version: endpoint.version,
    },
  });
}
