// The few operator routes (contract §5, docs/openapi-admin.json) the CLI drives: simulations, webhook
// endpoints and their deliveries. @pgw/sdk covers only the public API, so this is a small client of its
// own; its failures are the SDK's GatewayError and ConnectionError, so they print the same way.
import { ConnectionError, GatewayError, type ErrorType } from '@pgw/sdk';

// An operator call is one row or one small page: 30 s is far beyond what one takes, and bounds a hung gateway.
const TIMEOUT_MS = 30_000;

export interface WebhookEndpoint {
  object: 'webhook_endpoint';
  id: string;
  url: string;
  events: string[];
  secret: string;
  livemode: boolean;
}

export interface WebhookDelivery {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

interface Page<T> {
  data: T[];
}

export class AdminClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  createWebhookEndpoint(tenantId: string, body: { url: string; events?: string[] }) {
    return this.call<WebhookEndpoint>(
      'POST',
      `/admin/v1/tenants/${encodeURIComponent(tenantId)}/webhook-endpoints`,
      { ...body, environment: 'test' },
    );
  }

  deleteWebhookEndpoint(id: string) {
    return this.call<{ id: string; deleted: true }>(
      'DELETE',
      `/admin/v1/webhook-endpoints/${encodeURIComponent(id)}`,
    );
  }

  /** The newest deliveries of an endpoint, newest first. */
  deliveries(endpointId: string, limit: number) {
    return this.call<Page<WebhookDelivery>>(
      'GET',
      `/admin/v1/webhook-endpoints/${encodeURIComponent(endpointId)}/deliveries?limit=${limit}`,
    );
  }

  /** A pending Pix or boleto charge, paid by the simulated PSP or bank. */
  payCharge(chargeId: string) {
    return this.call<Record<string, unknown>>(
      'POST',
      `/admin/v1/simulations/charges/${encodeURIComponent(chargeId)}/pay`,
    );
  }

  openChargeback(body: { charge_id: string; amount_cents?: number; reason_code?: string }) {
    return this.call<Record<string, unknown> & { id: string }>(
      'POST',
      '/admin/v1/simulations/chargebacks',
      body,
    );
  }

  resolveChargeback(id: string, outcome: 'won' | 'lost') {
    return this.call<Record<string, unknown>>(
      'POST',
      `/admin/v1/simulations/chargebacks/${encodeURIComponent(id)}/resolve`,
      { outcome },
    );
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (cause) {
      throw new ConnectionError(
        {
          type: 'connection_error',
          code: 'connection_failed',
          message: `no answer from ${this.baseUrl}: ${cause instanceof Error ? cause.message : String(cause)}`,
          param: null,
          status: null,
          requestId: null,
          idempotencyKey: null,
        },
        { cause },
      );
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // Not JSON (a proxy's page): the status says what happened.
    }
    if (response.ok) return parsed as T;
    const answer = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as {
      error?: { type?: string; code?: string; message?: string; param?: string | null };
      request_id?: string;
    };
    throw new GatewayError({
      type: (answer.error?.type ?? 'api_error') as ErrorType,
      code: answer.error?.code ?? `http_${response.status}`,
      message: answer.error?.message ?? `HTTP ${response.status}`,
      param: answer.error?.param ?? null,
      status: response.status,
      requestId: answer.request_id ?? response.headers.get('x-request-id'),
      idempotencyKey: null,
    });
  }
}
