// The operator API (/admin/v1, docs/openapi-admin.json) as the dashboard uses it: a fetch with the admin
// token, and the error body of contract §2 thrown as an AdminError with its message and request id, like
// the SDK's GatewayError for the public API. The SDK covers /api/v1 only.
import type { Chargeback } from '@pgw/sdk';

export class AdminError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'AdminError';
  }
}

export interface Seller {
  object: 'seller';
  id: string;
  tenant_id: string;
  name: string;
  document: string;
  kyc_status: 'pending' | 'approved' | 'rejected';
  anticipation_limit_cents: number;
  fee_bps_per_month: number;
  settlement_delay_days: number;
  /** The seller's own plan, over the tenant's default; null: the default applies. */
  pricing_plan_id: string | null;
  created_at: string;
}

export type KycStatus = Seller['kyc_status'];

export interface Tenant {
  object: 'tenant';
  id: string;
  name: string;
  treasury_available_cash_cents: number;
  created_at: string;
}

export interface MdrBps {
  credit_card: number;
  debit_card: number;
  pix: number;
  boleto: number;
}

export interface PricingPlan {
  object: 'pricing_plan';
  id: string;
  tenant_id: string;
  name: string;
  fee_bps_per_month: number;
  settlement_delay_days: number;
  mdr_bps: MdrBps;
  default: boolean;
  created_at: string;
}

/** An endpoint as lists show it: without its signing secret. */
export interface WebhookEndpoint {
  object: 'webhook_endpoint';
  id: string;
  tenant_id: string;
  url: string;
  events: string[];
  environment: 'test' | 'live';
  created_at: string;
}

export interface ApiKey {
  object: 'api_key';
  id: string;
  tenant_id: string;
  seller_id: string | null;
  environment: 'test' | 'live';
  /** The end of the secret, to tell keys apart; null for keys made before the gateway kept it. */
  secret_last4: string | null;
  permissions: string[];
  status: 'active' | 'revoked';
  created_at: string;
  /** Only in the answer that created the key. */
  secret?: string;
}

export interface WebhookDelivery {
  object: 'webhook_delivery';
  id: string;
  webhook_endpoint_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
}

export interface WebhookAttempt {
  object: 'webhook_attempt';
  number: number;
  started_at: string;
  latency_ms: number;
  status_code: number | null;
  response_excerpt: string | null;
  error: string | null;
  succeeded: boolean;
}

export interface WebhookDeliveryWithAttempts extends WebhookDelivery {
  attempts: WebhookAttempt[];
}

export interface Page<T> {
  data: T[];
  page: number;
  total_pages: number;
  total: number;
}

export interface JobResult {
  job: string;
  as_of_date: string;
  processed: number;
}

export const JOBS = [
  'receivables-release',
  'settlement-run',
  'authorization-expiry',
  'pix-expiry',
  'refund-reconciliation',
] as const;

/**
 * The services with consumers, each of which parks the events it cannot apply (docs/runbook.md "Parked
 * events"): the gateway's PARKING_SERVICES (apps/gateway/src/routes.table.ts), whose sources the bundle
 * does not take in, as JOBS are its JOB_OWNERS.
 */
export const PARKING_SERVICES = [
  'charges',
  'ledger',
  'receivables',
  'anticipation',
  'webhooks',
] as const;

export type ParkingService = (typeof PARKING_SERVICES)[number];

/** An event a service's consumer could not apply and parked, with why. */
export interface DeadLetter {
  object: 'dead_letter';
  id: string;
  status: 'parked' | 'replayed';
  consumer: string;
  event_id: string;
  event_type: string | null;
  /** `unknown_type` or `handler_failed`. */
  reason: string;
  /** The last failure, for `handler_failed`. */
  error: string | null;
  topic: string;
  partition: number | null;
  offset: string | null;
  key: string;
  parked_at: string;
  replayed_at: string | null;
}

export interface DeadLetterReplay {
  object: 'dead_letter_replay';
  replayed: number;
  still_parked: number;
}

export type { Chargeback };

export class Admin {
  constructor(private readonly token: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const parsed: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      const error = (parsed as { error?: { message?: string; code?: string } } | null)?.error;
      const requestId =
        (parsed as { request_id?: string } | null)?.request_id ??
        response.headers.get('x-request-id');
      throw new AdminError(
        error?.message ?? `HTTP ${response.status}`,
        error?.code ?? `http_${response.status}`,
        response.status,
        requestId,
      );
    }
    return parsed as T;
  }

  /** Lists show this many a page: a screen's worth. */
  static readonly PAGE_LIMIT = 20;

  private page = <T>(
    path: string,
    page: number,
    limit = Admin.PAGE_LIMIT,
    filter: Record<string, string> = {},
  ) =>
    this.call<Page<T>>(
      'GET',
      `${path}?${new URLSearchParams({ page: String(page), limit: String(limit), ...filter }).toString()}`,
    );

  tenants = (page: number, limit?: number) => this.page<Tenant>('/tenants', page, limit);
  sellers = (
    tenantId: string,
    page: number,
    filter: { kyc_status?: KycStatus } = {},
    limit?: number,
  ) => this.page<Seller>(`/tenants/${encodeURIComponent(tenantId)}/sellers`, page, limit, filter);
  apiKeys = (tenantId: string, page: number) =>
    this.page<ApiKey>(`/tenants/${encodeURIComponent(tenantId)}/api-keys`, page);
  pricingPlans = (tenantId: string, page: number) =>
    this.page<PricingPlan>(`/tenants/${encodeURIComponent(tenantId)}/pricing-plans`, page);
  webhookEndpoints = (tenantId: string, page: number) =>
    this.page<WebhookEndpoint>(`/tenants/${encodeURIComponent(tenantId)}/webhook-endpoints`, page);
  createPricingPlan = (
    tenantId: string,
    body: {
      name: string;
      fee_bps_per_month: number;
      settlement_delay_days: number;
      default: boolean;
    },
  ) =>
    this.call<PricingPlan>('POST', `/tenants/${encodeURIComponent(tenantId)}/pricing-plans`, body);
  createTenant = (name: string) => this.call<Tenant>('POST', '/tenants', { name });
  createSeller = (tenantId: string, body: { name: string; document: string }) =>
    this.call<Seller>('POST', `/tenants/${encodeURIComponent(tenantId)}/sellers`, body);
  updatePricingPlan = (
    planId: string,
    body: Partial<{
      name: string;
      fee_bps_per_month: number;
      settlement_delay_days: number;
      default: boolean;
    }>,
  ) => this.call<PricingPlan>('PATCH', `/pricing-plans/${encodeURIComponent(planId)}`, body);
  updateSeller = (
    sellerId: string,
    body: Partial<Pick<Seller, 'kyc_status' | 'pricing_plan_id'>>,
  ) => this.call<Seller>('PATCH', `/sellers/${encodeURIComponent(sellerId)}`, body);
  createApiKey = (body: {
    tenant_id: string;
    seller_id: string | null;
    environment: 'test' | 'live';
    permissions: string[];
  }) => this.call<ApiKey>('POST', '/api-keys', body);
  revokeApiKey = (keyId: string) =>
    this.call<ApiKey>('DELETE', `/api-keys/${encodeURIComponent(keyId)}`);
  deliveries = (endpointId: string, page: number) =>
    this.page<WebhookDelivery>(
      `/webhook-endpoints/${encodeURIComponent(endpointId)}/deliveries`,
      page,
    );
  delivery = (id: string) =>
    this.call<WebhookDeliveryWithAttempts>('GET', `/webhook-deliveries/${encodeURIComponent(id)}`);
  redeliver = (id: string) =>
    this.call<WebhookDelivery>('POST', `/webhook-deliveries/${encodeURIComponent(id)}/redeliver`);
  runJob = (name: (typeof JOBS)[number], asOfDate: string | null) =>
    this.call<JobResult>(
      'POST',
      `/jobs/${name}`,
      asOfDate === null ? {} : { as_of_date: asOfDate },
    );
  payCharge = (chargeId: string) =>
    this.call<{ id: string; status: string }>(
      'POST',
      `/simulations/charges/${encodeURIComponent(chargeId)}/pay`,
    );
  deadLetters = (
    service: ParkingService,
    page: number,
    status: DeadLetter['status'] | null,
    limit?: number,
  ) =>
    this.page<DeadLetter>(
      `/services/${service}/dead-letters`,
      page,
      limit,
      status === null ? {} : { status },
    );
  replayDeadLetter = (service: ParkingService, id: string) =>
    this.call<DeadLetter>(
      'POST',
      `/services/${service}/dead-letters/${encodeURIComponent(id)}/replay`,
    );
  replayDeadLetters = (service: ParkingService) =>
    this.call<DeadLetterReplay>('POST', `/services/${service}/dead-letters/replay`);
  openChargeback = (body: { charge_id: string; amount_cents?: number; reason_code?: string }) =>
    this.call<Chargeback>('POST', '/simulations/chargebacks', body);
  resolveChargeback = (chargebackId: string, outcome: 'won' | 'lost') =>
    this.call<Chargeback>(
      'POST',
      `/simulations/chargebacks/${encodeURIComponent(chargebackId)}/resolve`,
      { outcome },
    );
  providerMode = (mode: 'normal' | 'unavailable' | 'timeout') =>
    this.call<{ mode: string }>('POST', '/simulations/provider', { mode });
}
