import Ajv from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { buildBrCode, verifyBrCode } from '@pgw/domain';
import {
  REFERENCE_PATTERN,
  type AcquirerFailure,
  type AcquirerPort,
  type AcquirerResult,
  type CreatePixChargeInput,
  type PixCharge,
} from '../../port';
import { centsToReais, PIX_AMOUNT_CENTS_MAX, reaisToCents } from './amounts';
import { readBcbPixTlsMaterial, type BcbPixConfig, type BcbPixTlsMaterial } from './config';
import { refundIdOf, txidOf } from './ids';
import { refundStatusOf, toReceivedPix, type ReceivedPix } from './notifications';
import { PixTransport, type HttpAnswer } from './transport';
import {
  WireCob,
  WireCobV,
  WireDevolucao,
  WirePixList,
  WireProblem,
  type CobStatusValue,
  type WireCobBody,
  type WireCobVBody,
  type WireDevolucaoBody,
  type WirePixBody,
  type WirePixListBody,
  type WireProblemBody,
} from './wire';
import { validatorCache } from '../../wire-validators';

// The Pix part of the acquirer port over the Banco Central's API Pix (spec/openapi.yaml), which every PSP
// exposes to its receiving users. One adapter object per PSP account (base URL, OAuth2 client, client
// certificate, Pix key). How each port rule is kept:
// - Idempotent by our reference: the txid of a charge and the id of a refund are derived from the
//   reference (ids.ts), so a retry addresses the same resource. The API has no replay of its own: a PUT on
//   an existing txid is refused, so a refusal is followed by a GET that tells "already made with this very
//   request" (return it) from "made with another one" (reference_reused).
// - Failures are values: transport errors and statuses map to unavailable / timeout / rejected / not_found
//   exactly as the simulator's adapter maps them; a token that cannot be had is `unavailable`, since no
//   Pix call left.
//
// Beyond the port, what a live Pix account needs and the port does not name yet (the composition step
// will decide where they surface): due-date charges (cobv), refunds of a received Pix (devolução, which
// need the Pix's end-to-end id, not a card transaction id), the webhook registration, and the polling
// fallback. They follow the same two rules.

/** The Pix methods of the port this adapter fills; its card and boleto methods belong to other adapters. */
export type PixAcquirerPort = Pick<
  AcquirerPort,
  'code' | 'createPixCharge' | 'getPixCharge' | 'payPix' | 'expirePix'
>;

/** A Pix charge with the end-to-end id of the Pix that paid it, which a refund names. */
export interface BcbPixCharge extends PixCharge {
  endToEndId: string | null;
}

export interface PixDebtor {
  name: string;
  /** 11 digits, or `cnpj`: exactly one of the two. */
  cpf?: string;
  /** 14 characters (digits, or letters and digits for the alphanumeric CNPJ). */
  cnpj?: string;
}

export interface CreateDueDatePixChargeInput {
  reference: string;
  amountCents: number;
  /** YYYY-MM-DD: payable until the end of this day… */
  dueDate: string;
  /** …and this many calendar days after it (the standard's `validadeAposVencimento`, default 30). */
  validityDaysAfterDue: number;
  /** The standard requires the debtor on a due-date charge. */
  debtor: PixDebtor;
}

export interface BcbDueDatePixCharge {
  reference: string;
  txid: string;
  /** `expired` once the last payable day (due date + validity, São Paulo time) has passed unpaid, or after removal. */
  status: 'active' | 'paid' | 'expired';
  amountCents: number;
  qrCode: string;
  dueDate: string;
  validityDaysAfterDue: number;
  paidAt: string | null;
  endToEndId: string | null;
}

export interface RefundPixInput {
  /** Ours, stable per refund (the refund id): the devolução id is derived from it. */
  reference: string;
  /** The end-to-end id of the received Pix to give back (`BcbPixCharge.endToEndId`). */
  endToEndId: string;
  amountCents: number;
}

export interface BcbPixRefund {
  reference: string;
  refundId: string;
  endToEndId: string;
  /** The PACS.004 return id. */
  returnId: string;
  /** A Pix refund settles asynchronously: `processing` until the PSP reports DEVOLVIDO or NAO_REALIZADO. */
  status: 'processing' | 'succeeded' | 'failed';
  amountCents: number;
  failureReason: string | null;
  requestedAt: string | null;
  settledAt: string | null;
}

export interface ListReceivedPixInput {
  /** Inclusive bounds of the time the Pix was received, RFC 3339 instants. */
  from: string;
  to: string;
}

export interface BcbPixAdapterOptions {
  config: BcbPixConfig;
  /** The mutual-TLS material; read from the files the config names when absent. */
  tls?: BcbPixTlsMaterial;
  /** Milliseconds since the epoch: the token's lifetime and a charge's expiry are read against it. */
  now?: () => number;
  log?: { info(message: string): void; warn(message: string): void };
}

// A page of GET /pix holds at most 1000 records (the standard's maximum `itensPorPagina`). 100 pages are
// 100,000 Pix in one window: a poller that meets more narrows its window instead of reading on.
const POLL_PAGE_ITEMS = 1000;
const POLL_PAGES_MAX = 100;
const EXPIRES_IN_SECONDS_MIN = 60;
const EXPIRES_IN_SECONDS_MAX = 86_400;
/** The standard's default validity after the due date, and a bound: a charge payable for years is a mistake. */
const VALIDITY_DAYS_MAX = 3_650;
const MESSAGE_CHARS_MAX = 300;
/** Brazil has had no daylight saving since 2019: São Paulo is UTC−3 all year, which decides a due date's last day. */
const SAO_PAULO_OFFSET_MS = -3 * 3_600_000;
const E2E_PATTERN = /^[a-zA-Z0-9]{32}$/;
const REFERENCE = new RegExp(REFERENCE_PATTERN);

const ajv = new Ajv({ strict: false, allErrors: false });
const validator = validatorCache(ajv);

type Exchange<W> =
  { ok: true; wire: W } | { ok: false; failure: AcquirerFailure; statusCode: number | null };

function invalid(message: string): AcquirerFailure {
  return { ok: false, kind: 'rejected', code: 'invalid_request', message };
}

function problemMessage(body: unknown, fallback: string): string {
  if (!validator(WireProblem)(body)) return fallback;
  const problem = body as WireProblemBody;
  const reasons = (problem.violacoes ?? [])
    .map((v) => v.razao)
    .filter((r): r is string => typeof r === 'string');
  const text = [problem.title ?? problem.type, problem.detail, ...reasons]
    .filter((t) => t !== undefined && t !== '')
    .join(': ');
  return text.length > MESSAGE_CHARS_MAX ? `${text.slice(0, MESSAGE_CHARS_MAX - 1)}…` : text;
}

function lastInstantOfDay(date: string, extraDays: number): number {
  // The end of the given São Paulo calendar day plus extraDays, as epoch milliseconds.
  return (
    Date.parse(`${date}T00:00:00.000Z`) + (extraDays + 1) * 86_400_000 - SAO_PAULO_OFFSET_MS - 1
  );
}

export class BcbPixAdapter implements PixAcquirerPort {
  readonly code = 'bcb-pix';
  readonly #transport: PixTransport;
  private readonly now: () => number;

  constructor(private readonly options: BcbPixAdapterOptions) {
    const { config } = options;
    if (!Number.isSafeInteger(config.timeoutMs) || config.timeoutMs < 1)
      throw new RangeError('timeoutMs must be a positive integer');
    this.now = options.now ?? Date.now;
    this.#transport = new PixTransport({
      config,
      tls: options.tls ?? readBcbPixTlsMaterial(config),
      now: this.now,
      ...(options.log !== undefined ? { log: options.log } : {}),
    });
  }

  /** Closes the kept-alive connections to the PSP. */
  close(): void {
    this.#transport.close();
  }

  // ── Immediate charges (cob) ─────────────────────────────────────────────────────────────────────

  async createPixCharge(input: CreatePixChargeInput): Promise<AcquirerResult<BcbPixCharge>> {
    const refused = checkReference(input.reference) ?? checkAmount(input.amountCents);
    if (refused !== null) return refused;
    if (
      !Number.isSafeInteger(input.expiresInSeconds) ||
      input.expiresInSeconds < EXPIRES_IN_SECONDS_MIN ||
      input.expiresInSeconds > EXPIRES_IN_SECONDS_MAX
    ) {
      return invalid(
        `expiresInSeconds must be an integer between ${EXPIRES_IN_SECONDS_MIN} and ${EXPIRES_IN_SECONDS_MAX}`,
      );
    }
    const txid = txidOf(input.reference);
    const original = centsToReais(input.amountCents);
    const body = {
      calendario: { expiracao: input.expiresInSeconds },
      valor: { original },
      chave: this.options.config.chave,
    };
    const put = await this.putOnce<WireCobBody>(
      `/cob/${txid}`,
      WireCob,
      body,
      (wire) =>
        wire.valor.original === original &&
        wire.chave === body.chave &&
        wire.calendario.expiracao === input.expiresInSeconds,
      'a Pix charge',
    );
    return put.ok ? this.toPixCharge(input.reference, put.wire) : put;
  }

  async getPixCharge(reference: string): Promise<AcquirerResult<BcbPixCharge>> {
    const refused = checkReference(reference);
    if (refused !== null) return refused;
    const found = await this.exchange<WireCobBody>('GET', `/cob/${txidOf(reference)}`, WireCob);
    return found.ok ? this.toPixCharge(reference, found.wire) : found.failure;
  }

  /** A live charge is paid from the buyer's own bank app; a PSP offers no way to pay it for the buyer. */
  async payPix(reference: string): Promise<AcquirerResult<PixCharge>> {
    return (
      checkReference(reference) ??
      invalid(
        'a live Pix charge is paid by the buyer through their bank; there is no test payment at a PSP',
      )
    );
  }

  /** Removes an active charge (PATCH status REMOVIDA_PELO_USUARIO_RECEBEDOR); a removed or lapsed one is returned unchanged. */
  async expirePix(reference: string): Promise<AcquirerResult<BcbPixCharge>> {
    const current = await this.getPixCharge(reference);
    if (!current.ok) return current;
    if (current.value.status === 'paid')
      return {
        ok: false,
        kind: 'rejected',
        code: 'pix_not_expirable',
        message: 'the Pix charge is already paid',
      };
    if (current.value.status === 'expired') return current;
    const txid = txidOf(reference);
    const removed = await this.exchange<WireCobBody>('PATCH', `/cob/${txid}`, WireCob, {
      status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
    });
    if (removed.ok) return this.toPixCharge(reference, removed.wire);
    if (removed.statusCode !== 400) return removed.failure;
    // Refused: most likely paid in between. The charge's state now says which.
    const after = await this.getPixCharge(reference);
    if (!after.ok) return after;
    if (after.value.status === 'expired') return after;
    return {
      ok: false,
      kind: 'rejected',
      code: 'pix_not_expirable',
      message:
        after.value.status === 'paid' ? 'the Pix charge is already paid' : removed.failure.message,
    };
  }

  // ── Due-date charges (cobv): boleto-like Pix ────────────────────────────────────────────────────

  async createDueDatePixCharge(
    input: CreateDueDatePixChargeInput,
  ): Promise<AcquirerResult<BcbDueDatePixCharge>> {
    const refused =
      checkReference(input.reference) ??
      checkAmount(input.amountCents) ??
      checkDebtor(input.debtor);
    if (refused !== null) return refused;
    if (
      !/^\d{4}-\d{2}-\d{2}$/.test(input.dueDate) ||
      Number.isNaN(Date.parse(`${input.dueDate}T00:00:00Z`))
    )
      return invalid('dueDate must be YYYY-MM-DD');
    if (
      !Number.isSafeInteger(input.validityDaysAfterDue) ||
      input.validityDaysAfterDue < 0 ||
      input.validityDaysAfterDue > VALIDITY_DAYS_MAX
    ) {
      return invalid(`validityDaysAfterDue must be an integer between 0 and ${VALIDITY_DAYS_MAX}`);
    }
    if (lastInstantOfDay(input.dueDate, input.validityDaysAfterDue) < this.now()) {
      return {
        ok: false,
        kind: 'rejected',
        code: 'boleto_due_date_invalid',
        message: 'the charge would no longer be payable',
      };
    }
    const txid = txidOf(input.reference);
    const original = centsToReais(input.amountCents);
    const devedor =
      input.debtor.cpf !== undefined
        ? { cpf: input.debtor.cpf, nome: input.debtor.name }
        : { cnpj: input.debtor.cnpj as string, nome: input.debtor.name };
    const body = {
      calendario: {
        dataDeVencimento: input.dueDate,
        validadeAposVencimento: input.validityDaysAfterDue,
      },
      devedor,
      valor: { original },
      chave: this.options.config.chave,
    };
    const put = await this.putOnce<WireCobVBody>(
      `/cobv/${txid}`,
      WireCobV,
      body,
      (wire) =>
        wire.valor.original === original &&
        wire.chave === body.chave &&
        wire.calendario.dataDeVencimento === input.dueDate &&
        wire.calendario.validadeAposVencimento === input.validityDaysAfterDue,
      'a due-date Pix charge',
    );
    return put.ok ? this.toDueDateCharge(input.reference, put.wire) : put;
  }

  async getDueDatePixCharge(reference: string): Promise<AcquirerResult<BcbDueDatePixCharge>> {
    const refused = checkReference(reference);
    if (refused !== null) return refused;
    const found = await this.exchange<WireCobVBody>('GET', `/cobv/${txidOf(reference)}`, WireCobV);
    return found.ok ? this.toDueDateCharge(reference, found.wire) : found.failure;
  }

  // ── Refunds (devolução) ─────────────────────────────────────────────────────────────────────────

  async refundPix(input: RefundPixInput): Promise<AcquirerResult<BcbPixRefund>> {
    const refused =
      checkReference(input.reference) ??
      checkAmount(input.amountCents) ??
      checkEndToEndId(input.endToEndId);
    if (refused !== null) return refused;
    const path = `/pix/${input.endToEndId}/devolucao/${refundIdOf(input.reference)}`;
    const valor = centsToReais(input.amountCents);
    const requested = await this.exchange<WireDevolucaoBody>('PUT', path, WireDevolucao, { valor });
    if (requested.ok) return this.toRefund(input.reference, input.endToEndId, requested.wire);
    if (requested.statusCode !== 400 && requested.statusCode !== 409) return requested.failure;
    // Refused: this id was used already (our lost attempt), or the refund itself is not allowed
    // (more than what is left of the Pix, past the 90-day window).
    const existing = await this.exchange<WireDevolucaoBody>('GET', path, WireDevolucao);
    if (existing.ok) {
      if (existing.wire.valor !== valor)
        return {
          ok: false,
          kind: 'rejected',
          code: 'reference_reused',
          message: 'a refund with this reference exists with a different amount',
        };
      return this.toRefund(input.reference, input.endToEndId, existing.wire);
    }
    if (existing.failure.kind !== 'not_found') return existing.failure;
    return {
      ok: false,
      kind: 'rejected',
      code: 'not_refundable',
      message: requested.failure.message,
    };
  }

  async getPixRefund(input: {
    reference: string;
    endToEndId: string;
  }): Promise<AcquirerResult<BcbPixRefund>> {
    const refused = checkReference(input.reference) ?? checkEndToEndId(input.endToEndId);
    if (refused !== null) return refused;
    const found = await this.exchange<WireDevolucaoBody>(
      'GET',
      `/pix/${input.endToEndId}/devolucao/${refundIdOf(input.reference)}`,
      WireDevolucao,
    );
    return found.ok ? this.toRefund(input.reference, input.endToEndId, found.wire) : found.failure;
  }

  // ── Notifications: the webhook registration, and polling as the fallback ────────────────────────

  /** Registers (or replaces) the URL the PSP POSTs notifications to; the PSP appends `/pix`. Idempotent: the same URL again changes nothing. */
  async configureWebhook(
    webhookUrl: string,
  ): Promise<AcquirerResult<{ chave: string; webhookUrl: string }>> {
    let url: URL;
    try {
      url = new URL(webhookUrl);
    } catch {
      return invalid('webhookUrl must be an absolute URL');
    }
    if (url.protocol !== 'https:')
      return invalid('webhookUrl must be an https URL: the PSP calls it over mutual TLS');
    const { chave } = this.options.config;
    const outcome = await this.exchangeAnswer('PUT', `/webhook/${encodeURIComponent(chave)}`, {
      webhookUrl,
    });
    if (!outcome.ok) return outcome.failure;
    return { ok: true, value: { chave, webhookUrl } };
  }

  /**
   * The Pix received between two instants (GET /pix?inicio&fim), every page. `complete: false` says the
   * window held more than the bound allows: read it again in smaller windows.
   */
  async listReceivedPix(
    input: ListReceivedPixInput,
  ): Promise<AcquirerResult<{ pix: ReceivedPix[]; complete: boolean }>> {
    const from = Date.parse(input.from);
    const to = Date.parse(input.to);
    if (Number.isNaN(from) || Number.isNaN(to) || to < from)
      return invalid('from and to must be RFC 3339 instants, from not after to');
    const pix: ReceivedPix[] = [];
    for (let page = 0; page < POLL_PAGES_MAX; page++) {
      const query = new URLSearchParams({
        inicio: new Date(from).toISOString(),
        fim: new Date(to).toISOString(),
        'paginacao.paginaAtual': String(page),
        'paginacao.itensPorPagina': String(POLL_PAGE_ITEMS),
      });
      const listed = await this.exchange<WirePixListBody>(
        'GET',
        `/pix?${query.toString()}`,
        WirePixList,
      );
      if (!listed.ok) return listed.failure;
      pix.push(...(listed.wire.pix ?? []).map((w: WirePixBody) => toReceivedPix(w)));
      if (page + 1 >= listed.wire.parametros.paginacao.quantidadeDePaginas)
        return { ok: true, value: { pix, complete: true } };
    }
    return { ok: true, value: { pix, complete: false } };
  }

  // ── The wire ────────────────────────────────────────────────────────────────────────────────────

  /**
   * PUT `path`, whose id our reference names. A 400 or 409 means either that the charge exists (our
   * earlier attempt, whose answer was lost) or that the request is bad: a GET tells which, and a charge
   * found answers only a repeat of the same request (`sameRequest`); `what` names it in the refusal.
   */
  private async putOnce<W>(
    path: string,
    schema: TSchema,
    body: unknown,
    sameRequest: (wire: W) => boolean,
    what: string,
  ): Promise<{ ok: true; wire: W } | AcquirerFailure> {
    const created = await this.exchange<W>('PUT', path, schema, body);
    if (created.ok) return created;
    if (created.statusCode !== 400 && created.statusCode !== 409) return created.failure;
    const existing = await this.exchange<W>('GET', path, schema);
    if (!existing.ok)
      return existing.failure.kind === 'not_found' ? created.failure : existing.failure;
    if (!sameRequest(existing.wire))
      return {
        ok: false,
        kind: 'rejected',
        code: 'reference_reused',
        message: `${what} with this reference exists with a different request`,
      };
    return existing;
  }

  /** One call whose 2xx answer must match `schema`. */
  private async exchange<W>(
    method: 'GET' | 'PUT' | 'PATCH',
    path: string,
    schema: TSchema,
    body?: unknown,
  ): Promise<Exchange<W>> {
    const outcome = await this.exchangeAnswer(method, path, body);
    if (!outcome.ok) return outcome;
    if (!validator(schema)(outcome.answer.body)) {
      return {
        ok: false,
        failure: {
          ok: false,
          kind: 'timeout',
          message: 'the PSP answered with an unreadable body',
        },
        statusCode: outcome.answer.statusCode,
      };
    }
    return { ok: true, wire: outcome.answer.body as W };
  }

  /** One call; any 2xx is success. Statuses map to the port's failures as the simulator's adapter maps them. */
  private async exchangeAnswer(
    method: 'GET' | 'PUT' | 'PATCH',
    path: string,
    body?: unknown,
  ): Promise<
    | { ok: true; answer: HttpAnswer }
    | { ok: false; failure: AcquirerFailure; statusCode: number | null }
  > {
    const outcome = await this.#transport.call(
      method,
      `${this.options.config.baseUrl}${path}`,
      body,
    );
    if (!outcome.ok) return { ok: false, failure: outcome, statusCode: null };
    const { statusCode, body: answer } = outcome.answer;
    if (statusCode >= 200 && statusCode < 300) return { ok: true, answer: outcome.answer };
    const fail = (failure: AcquirerFailure) => ({ ok: false as const, failure, statusCode });
    if (statusCode === 503 || statusCode === 429)
      return fail({
        ok: false,
        kind: 'unavailable',
        message: `the PSP is unavailable (${statusCode})`,
      });
    if (statusCode === 401 || statusCode === 403)
      return fail({
        ok: false,
        kind: 'unavailable',
        message: `the PSP refused our credentials (${statusCode}): ${problemMessage(answer, 'access denied')}`,
      });
    if (statusCode === 404)
      return fail({
        ok: false,
        kind: 'not_found',
        message: problemMessage(answer, 'not found at the PSP'),
      });
    if (statusCode >= 400 && statusCode < 500)
      return fail(invalid(problemMessage(answer, `the PSP rejected the request (${statusCode})`)));
    // A 500 or a gateway error: the PSP may have applied the request before failing.
    return fail({
      ok: false,
      kind: 'timeout',
      message: `the PSP failed with ${statusCode}; outcome unknown`,
    });
  }

  private qrCode(
    w: { pixCopiaECola?: string; location?: string; loc?: { location?: string } },
    amountCents: number,
  ): string | null {
    // The PSP's own BR Code is preferred: it is what the PSP will recognise when the payer's bank reads it.
    if (w.pixCopiaECola !== undefined && verifyBrCode(w.pixCopiaECola).ok) return w.pixCopiaECola;
    const location = w.location ?? w.loc?.location;
    if (location === undefined) return null;
    const { merchantName, merchantCity } = this.options.config;
    // A dynamic BR Code names no txid in field 62-05 ('***'): the payer's bank reads it from the location.
    try {
      return buildBrCode({
        merchantName,
        merchantCity,
        amountCents,
        txid: '***',
        locationUrl: location,
      });
    } catch {
      // A location longer than a BR Code field can hold (99 characters) is an answer we cannot use.
      return null;
    }
  }

  private toPixCharge(reference: string, w: WireCobBody): AcquirerResult<BcbPixCharge> {
    const amountCents = reaisToCents(w.valor.original) ?? 0;
    const createdAtMs = Date.parse(w.calendario.criacao);
    const qrCode = this.qrCode(w, amountCents);
    if (Number.isNaN(createdAtMs) || qrCode === null)
      return {
        ok: false,
        kind: 'timeout',
        message: 'the PSP answered a charge without a creation time or a location',
      };
    const expiresAtMs = createdAtMs + w.calendario.expiracao * 1000;
    const paid = w.pix?.[0];
    return {
      ok: true,
      value: {
        reference,
        txid: w.txid,
        status: chargeStatus(w.status, this.now() >= expiresAtMs),
        amountCents,
        qrCode,
        expiresAt: new Date(expiresAtMs).toISOString(),
        paidAt: w.status === 'CONCLUIDA' ? (paid?.horario ?? null) : null,
        endToEndId: paid?.endToEndId ?? null,
      },
    };
  }

  private toDueDateCharge(reference: string, w: WireCobVBody): AcquirerResult<BcbDueDatePixCharge> {
    const amountCents = reaisToCents(w.valor.original) ?? 0;
    const qrCode = this.qrCode(w, amountCents);
    if (qrCode === null)
      return {
        ok: false,
        kind: 'timeout',
        message: 'the PSP answered a due-date charge without a location',
      };
    const lapsed =
      this.now() >
      lastInstantOfDay(w.calendario.dataDeVencimento, w.calendario.validadeAposVencimento);
    const paid = w.pix?.[0];
    return {
      ok: true,
      value: {
        reference,
        txid: w.txid,
        status: chargeStatus(w.status, lapsed),
        amountCents,
        qrCode,
        dueDate: w.calendario.dataDeVencimento,
        validityDaysAfterDue: w.calendario.validadeAposVencimento,
        paidAt: w.status === 'CONCLUIDA' ? (paid?.horario ?? null) : null,
        endToEndId: paid?.endToEndId ?? null,
      },
    };
  }

  private toRefund(
    reference: string,
    endToEndId: string,
    w: WireDevolucaoBody,
  ): AcquirerResult<BcbPixRefund> {
    return {
      ok: true,
      value: {
        reference,
        refundId: w.id,
        endToEndId,
        returnId: w.rtrId,
        status: refundStatusOf(w.status),
        amountCents: reaisToCents(w.valor) ?? 0,
        failureReason: w.status === 'NAO_REALIZADO' ? (w.motivo ?? 'not_completed') : null,
        requestedAt: w.horario.solicitacao ?? null,
        settledAt: w.horario.liquidacao ?? null,
      },
    };
  }
}

function chargeStatus(status: CobStatusValue, lapsed: boolean): 'active' | 'paid' | 'expired' {
  if (status === 'CONCLUIDA') return 'paid';
  if (status === 'ATIVA') return lapsed ? 'expired' : 'active';
  return 'expired';
}

function checkReference(reference: string): AcquirerFailure | null {
  return REFERENCE.test(reference) ? null : invalid(`reference must match ${REFERENCE_PATTERN}`);
}

function checkAmount(amountCents: number): AcquirerFailure | null {
  return Number.isSafeInteger(amountCents) &&
    amountCents >= 1 &&
    amountCents <= PIX_AMOUNT_CENTS_MAX
    ? null
    : invalid(`amountCents must be an integer between 1 and ${PIX_AMOUNT_CENTS_MAX}`);
}

function checkEndToEndId(endToEndId: string): AcquirerFailure | null {
  return E2E_PATTERN.test(endToEndId) ? null : invalid('endToEndId must be 32 letters and digits');
}

function checkDebtor(debtor: PixDebtor): AcquirerFailure | null {
  if (debtor.name.trim() === '' || debtor.name.length > 200)
    return invalid('debtor.name must be 1 to 200 characters');
  const hasCpf = debtor.cpf !== undefined;
  if (hasCpf === (debtor.cnpj !== undefined))
    return invalid('the debtor needs exactly one of cpf and cnpj');
  if (hasCpf && !/^\d{11}$/.test(debtor.cpf as string))
    return invalid('debtor.cpf must be 11 digits');
  if (!hasCpf && !/^[0-9A-Z]{14}$/.test(debtor.cnpj as string))
    return invalid('debtor.cnpj must be 14 digits or capital letters');
  return null;
}
