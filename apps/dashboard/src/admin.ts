// The operator API (/admin/v1, docs/openapi-admin.json) as the dashboard uses it: a fetch with the admin
// token, and the error body of contract §2 thrown as an AdminError with its message and request id, like
// the SDK's GatewayError for the public API. The SDK covers /api/v1 only.

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
}

export interface Tenant {
  object: 'tenant';
  id: string;
  name: string;
  treasury_available_cash_cents?: number;
}

export interface ApiKey {
  object: 'api_key';
  id: string;
  tenant_id: string;
  seller_id: string | null;
  environment: 'test' | 'live';
  permissions: string[];
  status: 'active' | 'revoked';
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

export const JOBS = ['receivables-release', 'settlement-run', 'authorization-expiry', 'pix-expiry', 'refund-reconciliation'] as const;

export class Admin {
  constructor(private readonly token: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const parsed: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      const error = (parsed as { error?: { message?: string; code?: string } } | null)?.error;
      const requestId = (parsed as { request_id?: string } | null)?.request_id ?? response.headers.get('x-request-id');
      throw new AdminError(error?.message ?? `HTTP ${response.status}`, error?.code ?? `http_${response.status}`, response.status, requestId);
    }
    return parsed as T;
  }

  createTenant = (name: string) => this.call<Tenant>('POST', '/tenants', { name });
  createSeller = (tenantId: string, body: { name: string; document: string }) => this.call<Seller>('POST', `/tenants/${encodeURIComponent(tenantId)}/sellers`, body);
  updateSeller = (sellerId: string, body: Partial<Pick<Seller, 'kyc_status'>>) => this.call<Seller>('PATCH', `/sellers/${encodeURIComponent(sellerId)}`, body);
  createApiKey = (body: { tenant_id: string; seller_id: string | null; environment: 'test' | 'live'; permissions: string[] }) => this.call<ApiKey>('POST', '/api-keys', body);
  revokeApiKey = (keyId: string) => this.call<ApiKey>('DELETE', `/api-keys/${encodeURIComponent(keyId)}`);
  deliveries = (endpointId: string, page: number) => this.call<Page<WebhookDelivery>>('GET', `/webhook-endpoints/${encodeURIComponent(endpointId)}/deliveries?page=${page}&limit=20`);
  delivery = (id: string) => this.call<WebhookDelivery>('GET', `/webhook-deliveries/${encodeURIComponent(id)}`);
  redeliver = (id: string) => this.call<WebhookDelivery>('POST', `/webhook-deliveries/${encodeURIComponent(id)}/redeliver`);
  runJob = (name: (typeof JOBS)[number], asOfDate: string | null) => this.call<JobResult>('POST', `/jobs/${name}`, asOfDate === null ? {} : { as_of_date: asOfDate });
  payCharge = (chargeId: string) => this.call<{ id: string; status: string }>('POST', `/simulations/charges/${encodeURIComponent(chargeId)}/pay`);
  providerMode = (mode: 'normal' | 'unavailable' | 'timeout') => this.call<{ mode: string }>('POST', '/simulations/provider', { mode });
}
