import type { paths } from './generated/api';

// The resource types an integrator handles, derived from the generated `paths` by route and status, so
// that they follow docs/openapi.json (its component names may change; its routes are the contract).

type Method = 'get' | 'post';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The JSON body a route answers with `status`. */
export type ResponseBody<P extends keyof paths, M extends Method, S extends number> =
  Operation<P, M> extends { responses: { [K in S]: { content: { 'application/json': infer R } } } }
    ? R
    : never;

/** The JSON body a route accepts. */
export type RequestBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B
    : never;

/** The query parameters of a route. */
export type QueryParams<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** A JSON object, where the document declares no body for a route (the health check, the documents). */
type OrJsonObject<T> = [T] extends [never] ? Record<string, unknown> : T;

export type Health = OrJsonObject<ResponseBody<'/api/v1/health', 'get', 200>>;
export type OpenApiDocument = OrJsonObject<ResponseBody<'/api/v1/openapi.json', 'get', 200>>;
export type AsyncApiDocument = OrJsonObject<ResponseBody<'/api/v1/asyncapi.json', 'get', 200>>;
export type PaymentMethodToken = ResponseBody<'/api/v1/payment-methods/tokenize', 'post', 201>;
export type TokenCreateParams = RequestBody<'/api/v1/payment-methods/tokenize', 'post'>;
export type Charge = ResponseBody<'/api/v1/charges', 'post', 201>;
export type ChargeCreateParams = RequestBody<'/api/v1/charges', 'post'>;
export type ChargeListParams = QueryParams<'/api/v1/charges', 'get'>;
export type ChargeRetrieved = ResponseBody<'/api/v1/charges/{id}', 'get', 200>;
export type ChargeCaptured = ResponseBody<'/api/v1/charges/{id}/capture', 'post', 200>;
export type Refund = ResponseBody<'/api/v1/charges/{id}/refund', 'post', 201>;
export type RefundCreateParams = NonNullable<RequestBody<'/api/v1/charges/{id}/refund', 'post'>>;
export type Balance = ResponseBody<'/api/v1/balance', 'get', 200>;
export type BalanceHistoryParams = QueryParams<'/api/v1/balance/history', 'get'>;
export type BalanceTransaction = ListItem<'/api/v1/balance/history'>;
export type ReceivableListParams = QueryParams<'/api/v1/receivables', 'get'>;
export type Receivable = ResponseBody<'/api/v1/receivables/{id}', 'get', 200>;
export type SettlementListParams = QueryParams<'/api/v1/settlements', 'get'>;
export type Settlement = ResponseBody<'/api/v1/settlements/{id}', 'get', 200>;
/** One change of a charge, its refunds or chargebacks (GET /charges/{id}/events); `id` is its webhook event's. */
export type ChargeEvent = ListItem<'/api/v1/charges/{id}/events'>;
export type ChargebackListParams = QueryParams<'/api/v1/chargebacks', 'get'>;
export type Chargeback = ResponseBody<'/api/v1/chargebacks/{id}', 'get', 200>;
export type AnticipationSimulateParams = NonNullable<
  RequestBody<'/api/v1/anticipations/simulate', 'post'>
>;
export type AnticipationSimulation = ResponseBody<'/api/v1/anticipations/simulate', 'post', 200>;
export type AnticipationCreateParams = NonNullable<RequestBody<'/api/v1/anticipations', 'post'>>;
export type Anticipation = ResponseBody<'/api/v1/anticipations', 'post', 201>;
export type AnticipationRetrieved = ResponseBody<'/api/v1/anticipations/{id}', 'get', 200>;
export type AnticipationListParams = QueryParams<'/api/v1/anticipations', 'get'>;

/** The paths that answer the list envelope. */
export type ListPath =
  | '/api/v1/charges'
  | '/api/v1/charges/{id}/refunds'
  | '/api/v1/charges/{id}/events'
  | '/api/v1/balance/history'
  | '/api/v1/receivables'
  | '/api/v1/settlements'
  | '/api/v1/chargebacks'
  | '/api/v1/anticipations';
/** One page: `{ object: 'list', data, page, limit, total, total_pages, request_id }`. */
export type ListPage<P extends ListPath> = ResponseBody<P, 'get', 200>;
export type ListItem<P extends ListPath> = ListPage<P> extends { data: Array<infer T> } ? T : never;
