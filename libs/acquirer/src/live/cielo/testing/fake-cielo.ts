import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import Ajv from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { validatorCache } from '../../../wire-validators';
import cardStoreAnswer from '../fixtures/card-store.response.json';
import captureAnswer from '../fixtures/capture.response.json';
import saleByPaymentIdAnswer from '../fixtures/sale-by-payment-id.response.json';
import saleAnswer from '../fixtures/sale-token.response.json';
import salesByOrderAnswer from '../fixtures/sales-by-merchant-order-id.response.json';
import voidPartialAnswer from '../fixtures/void-partial.response.json';
import voidTotalAnswer from '../fixtures/void-total.response.json';
import {
  CieloAmountQuery,
  CieloCardRequest,
  CieloSaleRequest,
  type CieloCardRequestBody,
  type CieloSaleRequestBody,
} from '../cielo-wire';

// A stateful stand-in for Cielo API 3.0 on 127.0.0.1, for the contract tests: two servers, as Cielo has a
// transactional host and a query host, each serving only the routes the manual puts on it. Every request
// is checked against the manual's request shape (cielo-wire.ts, strict) and headers; what does not fit is
// recorded in `violations` and answered 400, so a test that ends with no violations proves the adapter
// spoke the documented dialect. Answers are the manual's examples (fixtures/) with this fake's values.
// Card outcomes follow the manual's sandbox table: the last digit of the card number decides.

export interface RecordedRequest {
  host: 'api' | 'query';
  method: string;
  path: string;
  headers: Record<string, string | undefined>;
  /** The raw body as sent: the leak test reads it to know the PAN really went to Cielo. */
  body: string;
}

/** What the next matching request meets instead of a normal answer. */
export type Fault =
  /** Cielo applies the request, and the answer never comes (the connection stays silent). */
  | { kind: 'lose-answer' }
  /** Cielo answers with this status (and body), without applying anything. */
  | { kind: 'status'; status: number; body?: unknown };

interface Sale {
  orderId: string;
  paymentId: string;
  amount: number;
  installments: number;
  capture: boolean;
  token: string;
  brand: string;
  status: number;
  returnCode: string;
  returnMessage: string;
  authorizationCode: string | undefined;
  captured: number;
  voided: number;
  receivedDate: string;
  capturedDate: string | undefined;
  voidedDate: string | undefined;
}

// The manual's "Credit card in sandbox" table: the last digit of the card number decides the outcome.
const SANDBOX_DECLINES: Readonly<Record<string, { code: string; message: string }>> = {
  '2': { code: '05', message: 'Not Authorized' },
  '3': { code: '57', message: 'Card Expired' },
  '5': { code: '78', message: 'Blocked Card' },
  '6': { code: '99', message: 'Time Out' },
  '7': { code: '77', message: 'Canceled Card' },
  '8': { code: '70', message: 'Problems with the Credit Card' },
};

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const ajv = new Ajv({ strict: false, allErrors: true });
const validator = validatorCache(ajv);
function check(schema: TSchema, value: unknown): string | null {
  const fn = validator(schema);
  return fn(value) ? null : ajv.errorsText(fn.errors);
}

const clone = <T>(value: T): T => structuredClone(value);
/** The manual's date format: São Paulo local time, no zone. */
function cieloDate(at: Date): string {
  return new Date(at.getTime() - 3 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

export class FakeCielo {
  readonly requests: RecordedRequest[] = [];
  readonly violations: string[] = [];
  private readonly cards = new Map<string, { brand: string; lastDigit: string }>();
  private readonly sales = new Map<string, Sale>();
  private readonly orders = new Map<string, string[]>();
  private readonly faults: Array<{ method: string; path: string; fault: Fault }> = [];
  private apiServer: Server | undefined;
  private queryServer: Server | undefined;
  apiUrl = '';
  queryUrl = '';

  constructor(
    readonly merchantId: string,
    private readonly merchantKey: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async start(): Promise<void> {
    this.apiServer = createServer((req, res) => void this.handle('api', req, res));
    this.queryServer = createServer((req, res) => void this.handle('query', req, res));
    this.apiUrl = await listen(this.apiServer);
    this.queryUrl = await listen(this.queryServer);
  }

  async close(): Promise<void> {
    for (const server of [this.apiServer, this.queryServer]) {
      if (server === undefined) continue;
      // Answers held back by a lose-answer fault keep their sockets open: end them, or close never returns.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** The next request with this method whose path starts with `path` meets `fault`. */
  failNext(method: string, path: string, fault: Fault): void {
    this.faults.push({ method, path, fault });
  }

  /** How many sales were made under a MerchantOrderId (the double-sale check). */
  salesUnder(orderId: string): number {
    return this.orders.get(orderId)?.length ?? 0;
  }

  private async handle(
    host: 'api' | 'query',
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const header = (name: string): string | undefined => {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value[0] : value;
    };
    this.requests.push({
      host,
      method,
      path: `${url.pathname}${url.search}`,
      headers: { MerchantId: header('MerchantId'), RequestId: header('RequestId') },
      body: raw,
    });

    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    const refuse = (why: string): void => {
      this.violations.push(`${method} ${url.pathname}: ${why}`);
      send(400, [{ Code: 0, Message: 'Request does not match the manual' }]);
    };

    // Headers every call needs (the manual's tables mark MerchantId, MerchantKey and Content-Type required).
    if (header('MerchantId') !== this.merchantId || header('MerchantKey') !== this.merchantKey)
      return send(401, undefined);
    if (!(header('Content-Type') ?? '').startsWith('application/json'))
      return refuse('Content-Type must be application/json');
    const requestId = header('RequestId');
    if (requestId !== undefined && !GUID.test(requestId)) return refuse('RequestId must be a GUID');

    const faultAt = this.faults.findIndex(
      (f) => f.method === method && url.pathname.startsWith(f.path),
    );
    const fault = faultAt >= 0 ? this.faults.splice(faultAt, 1)[0]!.fault : undefined;
    if (fault?.kind === 'status') return send(fault.status, fault.body);
    // A lost answer: the request is applied below and its answer is never written.
    const answer = fault?.kind === 'lose-answer' ? (): void => undefined : send;

    const segments = url.pathname.split('/').filter((s) => s !== '');
    if (host === 'api' && method === 'POST' && url.pathname === '/1/card/')
      return this.storeCard(raw, answer, refuse);
    if (host === 'api' && method === 'POST' && url.pathname === '/1/sales/')
      return this.sell(raw, answer, refuse);
    if (
      host === 'api' &&
      method === 'PUT' &&
      segments.length === 4 &&
      segments[0] === '1' &&
      segments[1] === 'sales'
    ) {
      if (raw !== '') return refuse('capture and void take no body');
      const query = Object.fromEntries(url.searchParams);
      const invalid = check(CieloAmountQuery, query);
      if (invalid !== null) return refuse(`query: ${invalid}`);
      const sale = this.sales.get(segments[2]!);
      if (sale === undefined) return send(404, undefined);
      if (segments[3] === 'capture') return this.capture(sale, answer);
      if (segments[3] === 'void')
        return this.void(
          sale,
          query['amount'] === undefined ? undefined : Number(query['amount']),
          answer,
        );
    }
    if (host === 'query' && method === 'GET' && url.pathname === '/1/sales') {
      const orderId = url.searchParams.get('merchantOrderId');
      if (orderId === null) return refuse('merchantOrderId is required');
      const ids = this.orders.get(orderId);
      if (ids === undefined) return send(404, undefined);
      const body = clone(salesByOrderAnswer);
      body.Payment = ids.map((id) => ({
        PaymentId: id,
        ReceveidDate: this.sales.get(id)!.receivedDate.replace(' ', 'T'),
      }));
      return answer(200, body);
    }
    if (
      host === 'query' &&
      method === 'GET' &&
      segments.length === 3 &&
      segments[0] === '1' &&
      segments[1] === 'sales'
    ) {
      const sale = this.sales.get(segments[2]!);
      return sale === undefined ? send(404, undefined) : answer(200, this.saleByPaymentId(sale));
    }
    this.violations.push(
      `${method} ${url.pathname} on the ${host} host: no such route in the manual`,
    );
    send(404, undefined);
  }

  private storeCard(
    raw: string,
    answer: (status: number, body: unknown) => void,
    refuse: (why: string) => void,
  ): void {
    const body = parse(raw);
    const invalid = check(CieloCardRequest, body);
    if (invalid !== null) return refuse(`card store: ${invalid}`);
    const card = body as CieloCardRequestBody;
    const token = randomUUID();
    this.cards.set(token, { brand: card.Brand, lastDigit: card.CardNumber.slice(-1) });
    const out = clone(cardStoreAnswer);
    out.CardToken = token;
    out.Links.Href = `${this.queryUrl}/1/card/${token}`;
    answer(201, out);
  }

  private sell(
    raw: string,
    answer: (status: number, body: unknown) => void,
    refuse: (why: string) => void,
  ): void {
    const body = parse(raw);
    const invalid = check(CieloSaleRequest, body);
    if (invalid !== null) return refuse(`sale: ${invalid}`);
    const request = body as CieloSaleRequestBody;
    const card = this.cards.get(request.Payment.CreditCard.CardToken);
    if (card === undefined)
      return answer(400, [{ Code: 130, Message: 'Could not get Credit Card' }]);
    if (card.brand !== request.Payment.CreditCard.Brand)
      return answer(400, [{ Code: 185, Message: 'Brand is not supported by selected provider' }]);
    const decline = SANDBOX_DECLINES[card.lastDigit];
    const capture = request.Payment.Capture ?? false;
    const at = this.now();
    const sale: Sale = {
      orderId: request.MerchantOrderId,
      paymentId: randomUUID(),
      amount: request.Payment.Amount,
      installments: request.Payment.Installments,
      capture,
      token: request.Payment.CreditCard.CardToken,
      brand: request.Payment.CreditCard.Brand,
      status: decline !== undefined ? 3 : capture ? 2 : 1,
      returnCode: decline?.code ?? (capture ? '6' : '4'),
      returnMessage: decline?.message ?? 'Operation Successful',
      authorizationCode: decline !== undefined ? undefined : String(100000 + this.sales.size),
      captured: decline === undefined && capture ? request.Payment.Amount : 0,
      voided: 0,
      receivedDate: cieloDate(at),
      capturedDate: decline === undefined && capture ? cieloDate(at) : undefined,
      voidedDate: undefined,
    };
    this.sales.set(sale.paymentId, sale);
    this.orders.set(sale.orderId, [...(this.orders.get(sale.orderId) ?? []), sale.paymentId]);

    const out: Record<string, unknown> & { Payment: Record<string, unknown> } = clone(saleAnswer);
    out.MerchantOrderId = sale.orderId;
    Object.assign(out.Payment, {
      Installments: sale.installments,
      Capture: sale.capture,
      PaymentId: sale.paymentId,
      Amount: sale.amount,
      Status: sale.status,
      ReturnCode: sale.returnCode,
      ReturnMessage: sale.returnMessage,
      CreditCard: { SaveCard: false, CardToken: sale.token, Brand: sale.brand },
    });
    if (sale.authorizationCode === undefined) delete out.Payment['AuthorizationCode'];
    else out.Payment['AuthorizationCode'] = sale.authorizationCode;
    if (request.Payment.SoftDescriptor === undefined) delete out.Payment['SoftDescriptor'];
    else out.Payment['SoftDescriptor'] = request.Payment.SoftDescriptor;
    answer(201, out);
  }

  private capture(sale: Sale, answer: (status: number, body: unknown) => void): void {
    if (sale.status !== 1)
      return answer(400, [{ Code: 308, Message: 'Transaction not available to capture' }]);
    sale.status = 2;
    sale.captured = sale.amount;
    sale.capturedDate = cieloDate(this.now());
    const out = clone(captureAnswer);
    out.AuthorizationCode = sale.authorizationCode ?? '';
    answer(200, out);
  }

  private void(
    sale: Sale,
    amount: number | undefined,
    answer: (status: number, body: unknown) => void,
  ): void {
    // The manual: a partial void only on a captured sale; a total void on an authorized or captured one.
    if (amount !== undefined && sale.status !== 2)
      return answer(400, [{ Code: 309, Message: 'Transaction not available to void' }]);
    if (sale.status !== 1 && sale.status !== 2)
      return answer(400, [{ Code: 309, Message: 'Transaction not available to void' }]);
    const open = sale.status === 1 ? sale.amount : sale.captured - sale.voided;
    const voiding = amount ?? open;
    if (voiding > open)
      return answer(200, {
        ...clone(voidPartialAnswer),
        Status: sale.status,
        ReturnCode: '51',
        ReturnMessage: 'Cancellation above the original sales price',
      });
    sale.voided += voiding;
    sale.voidedDate = cieloDate(this.now());
    if (sale.status === 1 || sale.voided === sale.captured) {
      sale.status = 10;
      return answer(200, {
        ...clone(voidTotalAnswer),
        AuthorizationCode: sale.authorizationCode ?? '',
      });
    }
    answer(200, { ...clone(voidPartialAnswer), AuthorizationCode: sale.authorizationCode ?? '' });
  }

  private saleByPaymentId(sale: Sale): unknown {
    const out: Record<string, unknown> & { Payment: Record<string, unknown> } =
      clone(saleByPaymentIdAnswer);
    out.MerchantOrderId = sale.orderId;
    const payment = out.Payment;
    Object.assign(payment, {
      Installments: sale.installments,
      Capture: sale.capture,
      PaymentId: sale.paymentId,
      Amount: sale.amount,
      ReceivedDate: sale.receivedDate,
      Status: sale.status,
      ReturnCode: sale.returnCode,
      ReturnMessage: sale.returnMessage,
    });
    (payment['CreditCard'] as Record<string, unknown>)['Brand'] = sale.brand;
    if (sale.authorizationCode === undefined) delete payment['AuthorizationCode'];
    else payment['AuthorizationCode'] = sale.authorizationCode;
    for (const [field, value] of [
      ['CapturedAmount', sale.captured > 0 ? sale.captured : undefined],
      ['CapturedDate', sale.capturedDate],
      ['VoidedAmount', sale.voided > 0 ? sale.voided : undefined],
      ['VoidedDate', sale.voidedDate],
    ] as const) {
      if (value === undefined) delete payment[field];
      else payment[field] = value;
    }
    return out;
  }
}

function parse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('the fake Cielo has no TCP address');
  return `http://127.0.0.1:${address.port}`;
}
