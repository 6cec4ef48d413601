// Test support (not shipped code paths): the acquirer simulator as charges sees it through Peers. Apps
// may not import apps, so the specs of charges cannot start apps/acquirer-sim; this fake answers the same
// wire (the request and answer schemas of @pgw/acquirer, which the real adapter checks), with the
// contract §6 test cards, the fault modes of contract §5 behind the same operator route, and a record of
// every request that reached it. The all-in-one e2e suite runs charges against the real simulator.
import { randomBytes } from 'node:crypto';
import {
  AuthorizeRequest,
  CreatePixChargeRequest,
  ProviderModeBody,
  RefundRequest,
  RegisterBoletoRequest,
  SIM_PATHS,
  type AuthorizeRequestBody,
  type CreatePixChargeRequestBody,
  type ProviderMode,
  type RefundRequestBody,
  type RegisterBoletoRequestBody,
  type WireAuthorizationBody,
  type WireBoletoBody,
  type WirePixChargeBody,
  type WireRefundBody,
} from '@pgw/acquirer';
import { buildBarcode, buildBrCode, digitableLine } from '@pgw/domain';
import { buildApp, principalPlugin, requireOperator, type App, type TestPrincipals } from '@pgw/platform-http';
import type { FastifyReply } from 'fastify';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomId = (prefix: string, length = 20): string => prefix + Array.from(randomBytes(length), (b) => ALNUM[b % 62]).join('');

/** Contract §6, and the simulator's card whose refunds are declined. */
const DECLINES: Record<string, { status: 'refused' | 'failed'; reason: WireAuthorizationBody['refused_reason']; code: string | null; message: string }> = {
  '4000000000000002': { status: 'refused', reason: 'card_declined', code: '05', message: 'Do not honor' },
  '4000000000009995': { status: 'refused', reason: 'insufficient_funds', code: '51', message: 'Insufficient funds' },
  '4000000000000069': { status: 'refused', reason: 'expired_card', code: '54', message: 'Expired card' },
  '4000000000000119': { status: 'failed', reason: 'processing_error', code: null, message: 'Processing error' },
};
export const REFUND_DECLINED_PAN = '4000000000005126';

interface Authorization extends WireAuthorizationBody {
  card_ref: string;
  capture: boolean;
}

export class FakeAcquirer {
  mode: ProviderMode = 'normal';
  /** How long the timeout mode holds an answer (the adapter gives up before). */
  holdMs = 600;
  readonly cards = new Map<string, string>();
  readonly authorizations = new Map<string, Authorization>();
  readonly refunds = new Map<string, WireRefundBody>();
  readonly pix = new Map<string, WirePixChargeBody & { expires_in: number }>();
  readonly boletos = new Map<string, WireBoletoBody>();
  /** Every request that reached a handler (not refused by the unavailable mode): `METHOD path`. */
  readonly calls: string[] = [];
  /** Every authorize request's reference, in order (replays included). */
  readonly authorizeCalls: string[] = [];
  /** The security code each authorize request carried (the acquirer's side of "forwarded at sale time"). */
  readonly securityCodes = new Map<string, string | null>();
  /** While set, authorize requests wait for it once recorded: a test holds a charge at the acquirer. */
  authorizeGate: Promise<void> | null = null;
  /** While set, capture requests wait for it once the authorization is captured: a test holds the capture's answer. */
  captureGate: Promise<void> | null = null;
  private readonly held = new Set<() => void>();

  addCard(pan: string): string {
    const cardRef = randomId('card_');
    this.cards.set(cardRef, pan);
    return cardRef;
  }

  releaseHeld(): void {
    for (const release of [...this.held]) release();
  }

  async build(principals: TestPrincipals): Promise<App> {
    const app = principals.bind(buildApp({ name: 'fake-acquirer', log: { level: 'silent' } }));
    await app.register(principalPlugin, { publicKey: principals.publicKey, publicRoutes: Object.values(SIM_PATHS) });
    app.addHook('onClose', async () => this.releaseHeld());

    app.post<{ Body: { mode: ProviderMode } }>('/admin/v1/simulations/provider', { schema: { body: ProviderModeBody } }, async (request) => {
      requireOperator(request);
      this.mode = request.body.mode;
      return { object: 'provider_simulation', mode: this.mode };
    });

    await app.register(async (scope) => {
      const timedOut = new WeakSet<object>();
      scope.addHook('onRequest', async (request, reply) => {
        if (this.mode === 'unavailable') return reply.code(503).send({ error: { code: 'service_unavailable', message: 'unavailable' } });
        if (this.mode === 'timeout') timedOut.add(request);
        this.calls.push(`${request.method} ${request.url}`);
        return undefined;
      });
      scope.addHook('onSend', async (request, _reply, payload) => {
        if (timedOut.has(request)) {
          await new Promise<void>((resolve) => {
            const release = () => {
              clearTimeout(timer);
              this.held.delete(release);
              resolve();
            };
            const timer = setTimeout(release, this.holdMs);
            this.held.add(release);
          });
        }
        return payload;
      });
      this.routes(scope as unknown as App);
    });
    await app.ready();
    return app;
  }

  private routes(app: App): void {
    const reject = (reply: FastifyReply, status: number, code: string) => reply.code(status).send({ error: { code, message: code } });
    const wire = (a: Authorization): WireAuthorizationBody => {
      const { card_ref: _c, capture: _k, ...rest } = a;
      return rest;
    };

    app.post<{ Body: AuthorizeRequestBody }>(SIM_PATHS.authorizations, { schema: { body: AuthorizeRequest } }, async (request, reply) => {
      const body = request.body;
      this.authorizeCalls.push(body.reference);
      if (this.authorizeGate !== null) await this.authorizeGate;
      this.securityCodes.set(body.reference, body.security_code ?? null);
      const existing = this.authorizations.get(body.reference);
      if (existing !== undefined) {
        const same = existing.card_ref === body.card_ref && existing.amount_cents === body.amount_cents && existing.installments === body.installments && existing.capture === body.capture;
        if (!same) return reject(reply, 409, 'reference_reused');
        return reply.code(200).header('idempotent-replayed', 'true').send(wire(existing));
      }
      const pan = this.cards.get(body.card_ref);
      if (pan === undefined) return reject(reply, 422, 'card_not_found');
      const decline = DECLINES[pan];
      const now = new Date().toISOString();
      const approved = decline === undefined;
      const auth: Authorization = {
        reference: body.reference,
        transaction_id: randomId('txn_'),
        status: approved ? (body.capture ? 'captured' : 'authorized') : decline.status,
        amount_cents: body.amount_cents,
        installments: body.installments,
        captured_amount_cents: approved && body.capture ? body.amount_cents : 0,
        refunded_amount_cents: 0,
        authorization_code: approved ? 'A1B2C3' : null,
        return_code: approved ? '00' : decline.code,
        return_message: approved ? 'Approved' : decline.message,
        refused_reason: approved ? null : decline.reason,
        created_at: now,
        captured_at: approved && body.capture ? now : null,
        canceled_at: null,
        card_ref: body.card_ref,
        capture: body.capture,
      };
      this.authorizations.set(body.reference, auth);
      return reply.code(201).send(wire(auth));
    });

    app.get<{ Params: { reference: string } }>(SIM_PATHS.authorization, async (request, reply) => {
      const auth = this.authorizations.get(request.params.reference);
      return auth === undefined ? reject(reply, 404, 'authorization_not_found') : wire(auth);
    });

    const byTransaction = (id: string) => [...this.authorizations.values()].find((a) => a.transaction_id === id);
    app.post<{ Params: { transaction_id: string } }>(SIM_PATHS.capture, async (request, reply) => {
      const auth = byTransaction(request.params.transaction_id);
      if (auth === undefined) return reject(reply, 404, 'authorization_not_found');
      if (auth.status === 'authorized') Object.assign(auth, { status: 'captured', captured_amount_cents: auth.amount_cents, captured_at: new Date().toISOString() });
      else if (auth.status !== 'captured') return reject(reply, 422, 'not_capturable');
      if (this.captureGate !== null) await this.captureGate;
      return wire(auth);
    });
    app.post<{ Params: { transaction_id: string } }>(SIM_PATHS.cancel, async (request, reply) => {
      const auth = byTransaction(request.params.transaction_id);
      if (auth === undefined) return reject(reply, 404, 'authorization_not_found');
      if (auth.status === 'authorized') Object.assign(auth, { status: 'canceled', canceled_at: new Date().toISOString() });
      else if (auth.status !== 'canceled') return reject(reply, 422, 'not_cancelable');
      return wire(auth);
    });

    app.post<{ Body: RefundRequestBody }>(SIM_PATHS.refunds, { schema: { body: RefundRequest } }, async (request, reply) => {
      const body = request.body;
      const existing = this.refunds.get(body.reference);
      if (existing !== undefined) return reply.code(200).send(existing);
      const auth = byTransaction(body.transaction_id);
      if (auth === undefined) return reject(reply, 404, 'authorization_not_found');
      if (auth.status !== 'captured') return reject(reply, 422, 'not_refundable');
      if (auth.refunded_amount_cents + body.amount_cents > auth.captured_amount_cents) return reject(reply, 422, 'refund_amount_exceeds_captured');
      const declined = this.cards.get(auth.card_ref) === REFUND_DECLINED_PAN;
      const refund: WireRefundBody = {
        reference: body.reference,
        refund_id: randomId('rfd_'),
        transaction_id: body.transaction_id,
        status: declined ? 'failed' : 'succeeded',
        amount_cents: body.amount_cents,
        failure_reason: declined ? 'refund_declined' : null,
        created_at: new Date().toISOString(),
      };
      if (!declined) auth.refunded_amount_cents += body.amount_cents;
      this.refunds.set(body.reference, refund);
      return reply.code(201).send(refund);
    });
    app.get<{ Params: { reference: string } }>(SIM_PATHS.refund, async (request, reply) => {
      const refund = this.refunds.get(request.params.reference);
      return refund === undefined ? reject(reply, 404, 'refund_not_found') : refund;
    });

    const pixWire = (p: WirePixChargeBody & { expires_in: number }): WirePixChargeBody => {
      const { expires_in: _e, ...rest } = p;
      if (rest.status === 'active' && new Date(rest.expires_at).getTime() <= Date.now()) p.status = rest.status = 'expired';
      return rest;
    };
    app.post<{ Body: CreatePixChargeRequestBody }>(SIM_PATHS.pixCharges, { schema: { body: CreatePixChargeRequest } }, async (request, reply) => {
      const body = request.body;
      const existing = this.pix.get(body.reference);
      if (existing !== undefined) return reply.code(200).send(pixWire(existing));
      const txid = randomId('', 32);
      const pix = {
        reference: body.reference,
        txid,
        status: 'active' as const,
        amount_cents: body.amount_cents,
        qr_code: buildBrCode({ merchantName: 'PGW FAKE', merchantCity: 'SAO PAULO', amountCents: body.amount_cents, txid: '***', locationUrl: `pix.fake.test/v2/cob/${txid}` }),
        expires_at: new Date(Date.now() + body.expires_in * 1000).toISOString(),
        paid_at: null,
        expires_in: body.expires_in,
      };
      this.pix.set(body.reference, pix);
      return reply.code(201).send(pixWire(pix));
    });
    app.get<{ Params: { reference: string } }>(SIM_PATHS.pixCharge, async (request, reply) => {
      const pix = this.pix.get(request.params.reference);
      return pix === undefined ? reject(reply, 404, 'pix_not_found') : pixWire(pix);
    });
    app.post<{ Params: { reference: string } }>(SIM_PATHS.pixPay, async (request, reply) => {
      const pix = this.pix.get(request.params.reference);
      if (pix === undefined) return reject(reply, 404, 'pix_not_found');
      const current = pixWire(pix);
      if (current.status === 'expired') return reject(reply, 422, 'pix_not_payable');
      if (current.status === 'active') Object.assign(pix, { status: 'paid', paid_at: new Date().toISOString() });
      return pixWire(pix);
    });
    app.post<{ Params: { reference: string } }>(SIM_PATHS.pixExpire, async (request, reply) => {
      const pix = this.pix.get(request.params.reference);
      if (pix === undefined) return reject(reply, 404, 'pix_not_found');
      if (pixWire(pix).status === 'paid') return reject(reply, 422, 'pix_not_expirable');
      pix.status = 'expired';
      return pixWire(pix);
    });

    let nossoNumero = 0;
    app.post<{ Body: RegisterBoletoRequestBody }>(SIM_PATHS.boletos, { schema: { body: RegisterBoletoRequest } }, async (request, reply) => {
      const body = request.body;
      const existing = this.boletos.get(body.reference);
      if (existing !== undefined) return reply.code(200).send(existing);
      if (body.due_date < new Date().toISOString().slice(0, 10)) return reject(reply, 422, 'boleto_due_date_invalid');
      nossoNumero++;
      const barcode = buildBarcode({ bankCode: '237', amountCents: body.amount_cents, dueDate: body.due_date, campoLivre: `123409${String(nossoNumero).padStart(11, '0')}00123450` });
      const boleto: WireBoletoBody = { reference: body.reference, status: 'registered', amount_cents: body.amount_cents, barcode, digitable_line: digitableLine(barcode), due_date: body.due_date, paid_at: null };
      this.boletos.set(body.reference, boleto);
      return reply.code(201).send(boleto);
    });
    app.get<{ Params: { reference: string } }>(SIM_PATHS.boleto, async (request, reply) => {
      const boleto = this.boletos.get(request.params.reference);
      return boleto === undefined ? reject(reply, 404, 'boleto_not_found') : boleto;
    });
    app.post<{ Params: { reference: string } }>(SIM_PATHS.boletoPay, async (request, reply) => {
      const boleto = this.boletos.get(request.params.reference);
      if (boleto === undefined) return reject(reply, 404, 'boleto_not_found');
      if (boleto.status === 'registered') Object.assign(boleto, { status: 'paid', paid_at: new Date().toISOString() });
      return boleto;
    });
  }
}
