import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/api';
import { errorFromResponse } from './errors';
import { PagedList } from './pagination';
import { DEFAULT_RETRY_POLICY, retryingFetch, type FetchFn, type RetryPolicy } from './transport';
import type {
  Anticipation,
  AnticipationCreateParams,
  AnticipationListParams,
  AnticipationRetrieved,
  AnticipationSimulateParams,
  AnticipationSimulation,
  AsyncApiDocument,
  Balance,
  BalanceHistoryParams,
  BalanceTransaction,
  Charge,
  Chargeback,
  ChargebackListParams,
  ChargeCaptured,
  ChargeCreateParams,
  ChargeEvent,
  ChargeListParams,
  ChargeRetrieved,
  Health,
  ListItem,
  ListPage,
  ListPath,
  OpenApiDocument,
  PaymentMethodToken,
  Receivable,
  ReceivableListParams,
  Refund,
  RefundCreateParams,
  Settlement,
  SettlementListParams,
  TokenCreateParams,
} from './types';
import { constructEvent } from './webhooks';

export interface GatewayOptions {
  /** A secret key, `sk_test_…` or `sk_live_…`. */
  apiKey: string;
  /** The gateway's root, without `/api/v1` (default http://127.0.0.1:8080, the port of `npm start`). */
  baseUrl?: string;
  /** Retries and deadlines (see RetryPolicy); each field defaults to DEFAULT_RETRY_POLICY's. */
  retry?: Partial<RetryPolicy>;
  /** The fetch to send with (default the global one): a proxy agent, a test double of the network. */
  fetch?: FetchFn;
}

/** Per call: the Idempotency-Key to send instead of a generated one, and an abort signal. */
export interface RequestOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

const newIdempotencyKey = () => `sdk_${globalThis.crypto.randomUUID()}`;

/**
 * The gateway's public API (`/api/v1`), one method per operation of docs/openapi.json, typed from it.
 * POSTs that move money (charge, capture, refund, anticipation) carry an Idempotency-Key, generated when
 * not given, that every retry of the call repeats; a non-2xx answer throws a GatewayError subclass.
 */
export class Gateway {
  private readonly client: Client<paths>;
  // Every operation of the API is safe to send again: reads, POSTs with an Idempotency-Key, and the two
  // POSTs that move no money (tokenize, simulate). A future operation that is not would get its own.
  private readonly retried: FetchFn;

  constructor(options: GatewayOptions) {
    if (!/^sk_(test|live)_/.test(options.apiKey))
      throw new Error('Gateway: apiKey must be a secret key, sk_test_… or sk_live_…');
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    const fetchImpl: FetchFn = options.fetch ?? ((request) => globalThis.fetch(request));
    this.retried = retryingFetch(fetchImpl, policy);
    this.client = createClient<paths>({
      baseUrl: (options.baseUrl ?? 'http://127.0.0.1:8080').replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${options.apiKey}` },
    });
  }

  readonly health = {
    /** GET /health: no key needed. */
    retrieve: (options: RequestOptions = {}) =>
      this.untyped<Health>(this.client.GET('/api/v1/health', this.init(options))),
  };

  /** The gateway's own documents: the OpenAPI of this API, the AsyncAPI of its events. */
  readonly documents = {
    openapi: (options: RequestOptions = {}) =>
      this.untyped<OpenApiDocument>(this.client.GET('/api/v1/openapi.json', this.init(options))),
    asyncapi: (options: RequestOptions = {}) =>
      this.untyped<AsyncApiDocument>(this.client.GET('/api/v1/asyncapi.json', this.init(options))),
  };

  readonly tokens = {
    /**
     * POST /payment-methods/tokenize: the card, once, for a reusable `tok_`. Retried like a read: a second
     * token of the same card moves no money.
     */
    create: (
      params: TokenCreateParams,
      options: RequestOptions = {},
    ): Promise<PaymentMethodToken> =>
      this.result(
        this.client.POST('/api/v1/payment-methods/tokenize', {
          body: params,
          ...this.init(options),
        }),
        null,
      ),
  };

  readonly charges = {
    /** POST /charges, with an Idempotency-Key. */
    create: (params: ChargeCreateParams, options: RequestOptions = {}): Promise<Charge> => {
      const key = options.idempotencyKey ?? newIdempotencyKey();
      return this.result(
        this.client.POST('/api/v1/charges', {
          body: params,
          params: { header: { 'Idempotency-Key': key } },
          ...this.init(options),
        }),
        key,
      );
    },
    /** GET /charges: newest first, narrowed by status, payment method and creation instant; await it for one page, iterate it for all. */
    list: (
      params: ChargeListParams = {},
      options: RequestOptions = {},
    ): PagedList<ListItem<'/api/v1/charges'>, ListPage<'/api/v1/charges'>> =>
      this.list('/api/v1/charges', params, options),
    /** GET /charges/{id}/refunds: every refund of the charge, newest first; await it for one page, iterate it for all. */
    refunds: (
      id: string,
      params: { page?: number; limit?: number } = {},
      options: RequestOptions = {},
    ): PagedList<
      ListItem<'/api/v1/charges/{id}/refunds'>,
      ListPage<'/api/v1/charges/{id}/refunds'>
    > => this.list('/api/v1/charges/{id}/refunds', params, options, { id }),
    /** GET /charges/{id}/events: each change of the charge, its refunds and chargebacks, newest first, under its webhook event's id. */
    events: (
      id: string,
      params: { page?: number; limit?: number } = {},
      options: RequestOptions = {},
    ): PagedList<ChargeEvent, ListPage<'/api/v1/charges/{id}/events'>> =>
      this.list('/api/v1/charges/{id}/events', params, options, { id }),
    /** GET /charges/{id}. */
    retrieve: (id: string, options: RequestOptions = {}): Promise<ChargeRetrieved> =>
      this.result(
        this.client.GET('/api/v1/charges/{id}', {
          params: { path: { id } },
          ...this.init(options),
        }),
        null,
      ),
    /** POST /charges/{id}/capture (a manual card charge), with an Idempotency-Key. */
    capture: (id: string, options: RequestOptions = {}): Promise<ChargeCaptured> => {
      const key = options.idempotencyKey ?? newIdempotencyKey();
      return this.result(
        this.client.POST('/api/v1/charges/{id}/capture', {
          params: { path: { id }, header: { 'Idempotency-Key': key } },
          body: {},
          ...this.init(options),
        }),
        key,
      );
    },
    /** POST /charges/{id}/refund: all that remains, or `amount_cents` of it; with an Idempotency-Key. */
    refund: (
      id: string,
      params: RefundCreateParams = {},
      options: RequestOptions = {},
    ): Promise<Refund> => {
      const key = options.idempotencyKey ?? newIdempotencyKey();
      return this.result(
        this.client.POST('/api/v1/charges/{id}/refund', {
          params: { path: { id }, header: { 'Idempotency-Key': key } },
          body: params,
          ...this.init(options),
        }),
        key,
      );
    },
  };

  readonly balance = {
    /** GET /balance (a seller-scoped key). */
    retrieve: (options: RequestOptions = {}): Promise<Balance> =>
      this.result(this.client.GET('/api/v1/balance', this.init(options)), null),
    /** GET /balance/history: the ledger entries, newest first; await it for one page, iterate it for all. */
    history: (
      params: BalanceHistoryParams = {},
      options: RequestOptions = {},
    ): PagedList<BalanceTransaction, ListPage<'/api/v1/balance/history'>> =>
      this.list('/api/v1/balance/history', params, options),
  };

  readonly receivables = {
    list: (
      params: ReceivableListParams = {},
      options: RequestOptions = {},
    ): PagedList<ListItem<'/api/v1/receivables'>, ListPage<'/api/v1/receivables'>> =>
      this.list('/api/v1/receivables', params, options),
    retrieve: (id: string, options: RequestOptions = {}): Promise<Receivable> =>
      this.result(
        this.client.GET('/api/v1/receivables/{id}', {
          params: { path: { id } },
          ...this.init(options),
        }),
        null,
      ),
  };

  readonly settlements = {
    list: (
      params: SettlementListParams = {},
      options: RequestOptions = {},
    ): PagedList<ListItem<'/api/v1/settlements'>, ListPage<'/api/v1/settlements'>> =>
      this.list('/api/v1/settlements', params, options),
    retrieve: (id: string, options: RequestOptions = {}): Promise<Settlement> =>
      this.result(
        this.client.GET('/api/v1/settlements/{id}', {
          params: { path: { id } },
          ...this.init(options),
        }),
        null,
      ),
  };

  readonly chargebacks = {
    list: (
      params: ChargebackListParams = {},
      options: RequestOptions = {},
    ): PagedList<ListItem<'/api/v1/chargebacks'>, ListPage<'/api/v1/chargebacks'>> =>
      this.list('/api/v1/chargebacks', params, options),
    retrieve: (id: string, options: RequestOptions = {}): Promise<Chargeback> =>
      this.result(
        this.client.GET('/api/v1/chargebacks/{id}', {
          params: { path: { id } },
          ...this.init(options),
        }),
        null,
      ),
  };

  readonly anticipations = {
    /** POST /anticipations/simulate: a preview with no effect, so it is retried like a read. */
    simulate: (
      params: AnticipationSimulateParams = {},
      options: RequestOptions = {},
    ): Promise<AnticipationSimulation> =>
      this.result(
        this.client.POST('/api/v1/anticipations/simulate', { body: params, ...this.init(options) }),
        null,
      ),
    /** POST /anticipations, with an Idempotency-Key. */
    create: (
      params: AnticipationCreateParams = {},
      options: RequestOptions = {},
    ): Promise<Anticipation> => {
      const key = options.idempotencyKey ?? newIdempotencyKey();
      return this.result(
        this.client.POST('/api/v1/anticipations', {
          body: params,
          params: { header: { 'Idempotency-Key': key } },
          ...this.init(options),
        }),
        key,
      );
    },
    list: (
      params: AnticipationListParams = {},
      options: RequestOptions = {},
    ): PagedList<ListItem<'/api/v1/anticipations'>, ListPage<'/api/v1/anticipations'>> =>
      this.list('/api/v1/anticipations', params, options),
    retrieve: (id: string, options: RequestOptions = {}): Promise<AnticipationRetrieved> =>
      this.result(
        this.client.GET('/api/v1/anticipations/{id}', {
          params: { path: { id } },
          ...this.init(options),
        }),
        null,
      ),
  };

  /** Verifying deliveries needs no key: the endpoint's `whsec_` secret. */
  readonly webhooks = { constructEvent };

  private init(options: RequestOptions): { fetch: FetchFn; signal?: AbortSignal } {
    return { fetch: this.retried, ...(options.signal ? { signal: options.signal } : {}) };
  }

  private async result<T>(call: Promise<Answer<T>>, idempotencyKey: string | null): Promise<T> {
    const { data, error, response } = await call;
    if (!response.ok) throw errorFromResponse(response, error, idempotencyKey);
    return data as T;
  }

  /** For the routes whose answer the document leaves without a schema: their JSON as the SDK types it. */
  private async untyped<T>(call: Promise<Answer<unknown>>): Promise<T> {
    return (await this.result(call, null)) as T;
  }

  private list<P extends ListPath>(
    path: P,
    params: { page?: number; limit?: number },
    options: RequestOptions,
    pathParams?: { id: string },
  ) {
    const fetchPage = (page: number) =>
      this.result(
        // Each list path takes `page`, `limit` and its own filters: the caller's params were typed by path.
        (this.client.GET as (path: ListPath, init: object) => Promise<Answer<ListPage<P>>>)(path, {
          params: {
            query: { ...params, page },
            ...(pathParams === undefined ? {} : { path: pathParams }),
          },
          ...this.init(options),
        }),
        null,
      );
    return new PagedList<ListItem<P>, ListPage<P>>(fetchPage, params.page ?? 1);
  }
}
