import { ConfigError } from '@pgw/platform-http';
import type { Cnab240Clock } from './live/cnab240/cnab240-boleto-adapter';
import type { BcbPixAdapter, PixAcquirerPort } from './live/pix-bcb/bcb-pix-adapter';
import { txidOf } from './live/pix-bcb/ids';
import type { PixNotifierTrust } from './live/pix-bcb/notifier-trust';
import { isProductionDeployment } from './live-guard';
import {
  buildBoletoRail,
  buildCardRail,
  buildPixRail,
  railCacheMs,
  railRecordOf,
  railsOfRecord,
  SIMULATOR_RAIL,
  type BoletoRail,
  type CardRail,
  type Cnab240StoreFor,
  type LiveRails,
  type PixRail,
  type RailChoice,
  type RailKind,
  type RailLog,
  type RailSettings,
} from './live-rails';
import type {
  AcquirerPort,
  AcquirerResult,
  Authorization,
  AuthorizeInput,
  Boleto,
  CancelInput,
  CaptureInput,
  CreatePixChargeInput,
  PixCharge,
  Refund,
  RefundInput,
  RefundLookup,
  RegisterBoletoInput,
  StoreCardInput,
  StoredCard,
} from './port';
import { assert } from '@pgw/domain';

// The acquirer port for one tenant in live mode: card calls go to its card adapter, Pix calls to its PSP's,
// boleto calls to its bank's. The composite adds no retry and no state of its own: each adapter already
// keeps the port's two rules (idempotent by our reference, failures as values, each call with its own
// deadline), and passing its result through unchanged is what keeps the charges service's recovery
// (look up by reference after a timeout) working on every rail.

/** What a rail answers when the tenant has none of that kind: nothing was sent, so nothing happened. */
function noRail(kind: RailKind): AcquirerResult<never> {
  return {
    ok: false,
    kind: 'unavailable',
    message: `no live ${kind} rail is configured for this tenant`,
  };
}

export interface LiveAcquirerRails {
  card: CardRail['adapter'] | null;
  pix: PixAcquirerPort | null;
  boleto: BoletoRail['adapter'] | null;
}

export class LiveAcquirer implements AcquirerPort {
  /** `acquirer_code` of a charge is per rail (`codeFor`); this names the composite in logs. */
  readonly code: string;

  constructor(private readonly rails: LiveAcquirerRails) {
    this.code = `live(${['card', 'pix', 'boleto'].map((k) => this.codeFor(k as RailKind)).join(',')})`;
  }

  /** The code of the adapter that serves one kind of payment, as a charge records it. */
  codeFor(kind: RailKind): string {
    return this.rails[kind]?.code ?? 'none';
  }

  storeCard(input: StoreCardInput): Promise<AcquirerResult<StoredCard>> {
    return this.onRail('card', (card) => card.storeCard(input));
  }
  authorize(input: AuthorizeInput): Promise<AcquirerResult<Authorization>> {
    return this.onRail('card', (card) => card.authorize(input));
  }
  getAuthorization(reference: string): Promise<AcquirerResult<Authorization>> {
    return this.onRail('card', (card) => card.getAuthorization(reference));
  }
  capture(input: CaptureInput): Promise<AcquirerResult<Authorization>> {
    return this.onRail('card', (card) => card.capture(input));
  }
  cancel(input: CancelInput): Promise<AcquirerResult<Authorization>> {
    return this.onRail('card', (card) => card.cancel(input));
  }

  /**
   * A Pix charge's transaction id is its txid, derived from the charge's reference: that is how a refund
   * of a Pix is told from a card refund. A Pix is refunded by its end-to-end id (a devolução), read from
   * the PSP's charge.
   */
  async refund(input: RefundInput): Promise<AcquirerResult<Refund>> {
    const chargeReference = input.chargeReference;
    if (chargeReference !== undefined && this.isPix(input.transactionId, chargeReference)) {
      const psp = this.pixRefunder();
      if (psp === null) return noRail('pix');
      const charge = await psp.getPixCharge(chargeReference);
      if (!charge.ok)
        return charge.kind === 'not_found'
          ? {
              ok: false,
              kind: 'rejected',
              code: 'not_refundable',
              message: 'the PSP has no such Pix charge',
            }
          : charge;
      if (charge.value.endToEndId === null)
        return {
          ok: false,
          kind: 'rejected',
          code: 'not_refundable',
          message: 'the Pix charge was not paid',
        };
      return settledPixRefund(
        input.transactionId,
        await psp.refundPix({
          reference: input.reference,
          endToEndId: charge.value.endToEndId,
          amountCents: input.amountCents,
        }),
      );
    }
    return this.rails.card === null ? noRail('card') : this.rails.card.refund(input);
  }

  async getRefund(reference: string, lookup?: RefundLookup): Promise<AcquirerResult<Refund>> {
    if (lookup !== undefined && this.isPix(lookup.transactionId, lookup.chargeReference)) {
      const psp = this.pixRefunder();
      if (psp === null) return noRail('pix');
      const charge = await psp.getPixCharge(lookup.chargeReference);
      if (!charge.ok) return charge;
      // No end-to-end id: the charge was never paid, so no refund of it can exist.
      if (charge.value.endToEndId === null)
        return { ok: false, kind: 'not_found', message: 'the Pix charge was not paid' };
      return settledPixRefund(
        lookup.transactionId,
        await psp.getPixRefund({ reference, endToEndId: charge.value.endToEndId }),
      );
    }
    return this.rails.card === null ? noRail('card') : this.rails.card.getRefund(reference, lookup);
  }

  createPixCharge(input: CreatePixChargeInput): Promise<AcquirerResult<PixCharge>> {
    return this.onRail('pix', (pix) => pix.createPixCharge(input));
  }
  getPixCharge(reference: string): Promise<AcquirerResult<PixCharge>> {
    return this.onRail('pix', (pix) => pix.getPixCharge(reference));
  }
  payPix(reference: string): Promise<AcquirerResult<PixCharge>> {
    return this.onRail('pix', (pix) => pix.payPix(reference));
  }
  expirePix(reference: string): Promise<AcquirerResult<PixCharge>> {
    return this.onRail('pix', (pix) => pix.expirePix(reference));
  }

  registerBoleto(input: RegisterBoletoInput): Promise<AcquirerResult<Boleto>> {
    return this.onRail('boleto', (boleto) => boleto.registerBoleto(input));
  }
  getBoleto(reference: string): Promise<AcquirerResult<Boleto>> {
    return this.onRail('boleto', (boleto) => boleto.getBoleto(reference));
  }
  payBoleto(reference: string): Promise<AcquirerResult<Boleto>> {
    return this.onRail('boleto', (boleto) => boleto.payBoleto(reference));
  }

  /** `call` on the adapter of one rail, or `unavailable` when this tenant has none configured. */
  private onRail<K extends RailKind, T>(
    kind: K,
    call: (adapter: NonNullable<LiveAcquirerRails[K]>) => Promise<AcquirerResult<T>>,
  ): Promise<AcquirerResult<T>> {
    const adapter = this.rails[kind];
    return adapter === null ? Promise.resolve(noRail(kind)) : call(adapter);
  }

  private isPix(transactionId: string, chargeReference: string): boolean {
    return this.rails.pix !== null && transactionId === txidOf(chargeReference);
  }

  private pixRefunder(): PixRefunder | null {
    const pix = this.rails.pix;
    return pix !== null && refundsPix(pix) ? pix : null;
  }
}

/** A PSP adapter that refunds by end-to-end id (the BCB API Pix one); the simulator refunds nothing of a Pix. */
type PixRefunder = Pick<BcbPixAdapter, 'getPixCharge' | 'refundPix' | 'getPixRefund'>;

function refundsPix(adapter: object): adapter is PixRefunder {
  return 'refundPix' in adapter && 'getPixRefund' in adapter;
}

/**
 * A Pix refund is settled by the SPI after the PSP accepts it: while it is `processing` its outcome is
 * not known yet, which the port says as `timeout` (look it up again by reference later).
 */
function settledPixRefund(
  transactionId: string,
  result: AcquirerResult<{
    reference: string;
    refundId: string;
    status: 'processing' | 'succeeded' | 'failed';
    amountCents: number;
    failureReason: string | null;
    requestedAt: string | null;
  }>,
): AcquirerResult<Refund> {
  if (!result.ok) return result;
  const r = result.value;
  if (r.status === 'processing')
    return {
      ok: false,
      kind: 'timeout',
      message: 'the Pix refund is being settled; look it up again later',
    };
  return {
    ok: true,
    value: {
      reference: r.reference,
      refundId: r.refundId,
      transactionId,
      status: r.status,
      amountCents: r.amountCents,
      failureReason: r.failureReason,
      createdAt: r.requestedAt ?? new Date().toISOString(),
    },
  };
}

// ── Routing ───────────────────────────────────────────────────────────────────────────────────────

/** Where a tenant's live rails are kept (the charges service's table; a test's map). */
export interface LiveRailsSource {
  liveRailsOf(tenantId: string): Promise<LiveRails | null>;
}

export interface Scope {
  tenantId: string;
  livemode: boolean;
}

export interface AcquirerRouterOptions {
  /** Test mode's acquirer, and live mode's sandbox outside production. */
  simulator: AcquirerPort;
  /** Where `forScope` and `liveAllowed` read a tenant's rails; a caller that reads them itself uses `forRails`. */
  source?: LiveRailsSource;
  env: NodeJS.ProcessEnv;
  log: RailLog;
  clock: Cnab240Clock;
  /** Where boleto rails keep their CNAB 240 state; without it, each account's CNAB240_STATE_FILE (one process only). */
  cnab240Store?: Cnab240StoreFor;
}

/** A configured rail as the operator API shows it. */
export type RailStatus =
  { ready: true; settings: RailSettings } | { ready: false; problem: string };

interface Cached<T> {
  rail: T | ConfigError;
  builtAtMs: number;
}

/**
 * Picks the acquirer for a request or a job: test mode always reaches the simulator; live mode reaches the
 * tenant's configured rails. A kind of payment without a live rail reaches the simulator as a sandbox,
 * except where DEPLOYMENT_ENV=production: there it answers `unavailable`, and `liveAllowed` tells the
 * routes to refuse it first (contract §6).
 */
export class AcquirerRouter {
  readonly production: boolean;
  private readonly cacheMs: number;
  private readonly cards = new Map<string, Cached<CardRail>>();
  private readonly pixes = new Map<string, Cached<PixRail>>();
  private readonly boletos = new Map<string, Cached<BoletoRail>>();

  constructor(private readonly options: AcquirerRouterOptions) {
    this.production = isProductionDeployment(options.env);
    this.cacheMs = railCacheMs(options.env);
  }

  get simulator(): AcquirerPort {
    return this.options.simulator;
  }

  async forScope(scope: Scope): Promise<AcquirerPort> {
    if (!scope.livemode) return this.options.simulator;
    return this.forRails(true, await this.source().liveRailsOf(scope.tenantId));
  }

  /** The acquirer for a mode and the tenant's rails as the caller read them. */
  forRails(livemode: boolean, rails: LiveRails | null): AcquirerPort {
    if (!livemode) return this.options.simulator;
    const sandbox = this.production ? null : this.options.simulator;
    if (rails === null || (rails.card === null && rails.pix === null && rails.boleto === null))
      return sandbox ?? new LiveAcquirer({ card: null, pix: null, boleto: null });
    return new LiveAcquirer({
      card: rails.card !== null ? railOrBroken(this.card(rails.card)) : sandbox,
      pix: rails.pix !== null ? railOrBroken(this.pix(rails.pix)) : sandbox,
      boleto: rails.boleto !== null ? railOrBroken(this.boleto(rails.boleto)) : sandbox,
    });
  }

  /** The rail that serves a kind of payment for a scope now, as a charge records it (`railRecordOf`). */
  async railFor(scope: Scope, kind: RailKind): Promise<string> {
    if (!scope.livemode) return SIMULATOR_RAIL;
    const rails = await this.source().liveRailsOf(scope.tenantId);
    return railRecordOf(rails?.[kind] ?? null);
  }

  /**
   * The acquirer of the rail a charge recorded (`railFor` when it was made): its capture, refunds and
   * look-ups go to the account that holds it, whatever the tenant's rails are now. A recorded `simulator`
   * of a live charge is the sandbox again — or, where DEPLOYMENT_ENV=production, `unavailable`.
   */
  forRecordedRail(livemode: boolean, kind: RailKind, record: string): AcquirerPort {
    if (!livemode) return this.options.simulator;
    if (record === SIMULATOR_RAIL) return this.forRails(true, null);
    const rails = railsOfRecord(kind, record);
    if (rails === null)
      return new UnconfiguredRail(
        `the charge's ${kind} rail "${record}" is not one this deployment knows`,
      );
    return this.forRails(true, rails);
  }

  /**
   * Why a recorded rail cannot serve a new request, or null when it can: a stored card is charged only
   * at the card store that holds it (its card reference means nothing to another account), so a token
   * made on a rail the deployment no longer holds complete credentials for — or on the live sandbox,
   * where DEPLOYMENT_ENV=production — is refused before anything is sent.
   */
  recordedRailProblem(livemode: boolean, kind: RailKind, record: string): string | null {
    if (!livemode) return null;
    if (record === SIMULATOR_RAIL)
      return this.production
        ? 'the live sandbox (simulator) is not served where DEPLOYMENT_ENV=production'
        : null;
    const rails = railsOfRecord(kind, record);
    if (rails === null) return `"${record}" is not a ${kind} rail this deployment knows`;
    const status = this.describe(rails)[kind];
    return status === null || status.ready ? null : status.problem;
  }

  /** Whether a live request of this kind may proceed for the tenant (contract §6): always outside production. */
  async liveAllowed(tenantId: string, kind: RailKind): Promise<boolean> {
    if (!this.production) return true;
    const rails = await this.source().liveRailsOf(tenantId);
    return rails !== null && rails[kind] !== null;
  }

  private source(): LiveRailsSource {
    const source = this.options.source;
    // Without a source, the caller reads the rails itself and calls forRails (see the constructor).
    assert(source !== undefined, 'acquirer.router-has-live-rails-source');
    return source;
  }

  /**
   * Builds each rail a configuration names and tells, per kind, its non-secret settings or what is missing
   * from its credentials: an operator learns at configuration time which variable to set.
   */
  describe(rails: LiveRails): Record<RailKind, RailStatus | null> {
    const status = (cached: Cached<{ settings: RailSettings }> | null): RailStatus | null =>
      cached === null
        ? null
        : cached.rail instanceof ConfigError
          ? { ready: false, problem: cached.rail.message }
          : { ready: true, settings: cached.rail.settings };
    return {
      card: status(rails.card === null ? null : this.card(rails.card)),
      pix: status(rails.pix === null ? null : this.pix(rails.pix)),
      boleto: status(rails.boleto === null ? null : this.boleto(rails.boleto)),
    };
  }

  /**
   * Which client certificates stand for the PSP of a Pix rail on our webhook (its
   * PIX_BCB_WEBHOOK_CLIENT_* variables); null when it names none or its credentials are incomplete: then
   * no notification is taken for it.
   */
  pixNotifierTrust(choice: RailChoice<'bcb-pix'>): PixNotifierTrust | null {
    const rail = this.pix(choice).rail;
    return rail instanceof ConfigError ? null : rail.notifierTrust;
  }

  /**
   * The Pix account a choice names, for what the port does not say (the pix-payments poll, the webhook's
   * registration at the PSP); a ConfigError when its credentials are incomplete.
   */
  pixAccount(choice: RailChoice<'bcb-pix'>): BcbPixAdapter | ConfigError {
    const rail = this.pix(choice).rail;
    return rail instanceof ConfigError ? rail : rail.adapter;
  }

  /** The boleto rail a choice names, for the file exchange job; a ConfigError when its credentials are incomplete. */
  boletoRail(choice: RailChoice<'cnab240-bb'>): BoletoRail | ConfigError {
    return this.boleto(choice).rail;
  }

  private card(choice: RailChoice<'cielo'>): Cached<CardRail> {
    return this.cached(this.cards, choice, () =>
      buildCardRail(choice, this.options.env, this.options.log),
    );
  }
  private pix(choice: RailChoice<'bcb-pix'>): Cached<PixRail> {
    return this.cached(
      this.pixes,
      choice,
      () => buildPixRail(choice, this.options.env, this.options.log),
      (old) => old.adapter.close(),
    );
  }
  private boleto(choice: RailChoice<'cnab240-bb'>): Cached<BoletoRail> {
    // Kept for the life of the process: a CNAB state file serves one writer, whose updates its store
    // queues in memory, so every call of this process must go through the same store.
    return this.cached(
      this.boletos,
      choice,
      () =>
        buildBoletoRail(choice, this.options.env, this.options.clock, this.options.cnab240Store),
      undefined,
      Number.POSITIVE_INFINITY,
    );
  }

  private cached<T>(
    map: Map<string, Cached<T>>,
    choice: RailChoice<string>,
    build: () => T,
    dispose?: (old: T) => void,
    keepMs = this.cacheMs,
  ): Cached<T> {
    const key = `${choice.provider}:${choice.credentials}`;
    const now = Date.now();
    const hit = map.get(key);
    if (
      hit !== undefined &&
      (hit.rail instanceof ConfigError
        ? now - hit.builtAtMs < Math.min(keepMs, 5_000)
        : now - hit.builtAtMs < keepMs)
    )
      return hit;
    if (hit !== undefined && !(hit.rail instanceof ConfigError) && dispose !== undefined)
      dispose(hit.rail);
    let rail: T | ConfigError;
    try {
      rail = build();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // Named after the variable or file at fault, never a value (the readers' rule).
      this.options.log.warn(
        { provider: choice.provider, credentials: choice.credentials },
        `live rail credentials are incomplete: ${error.message}`,
      );
      rail = error;
    }
    const entry = { rail, builtAtMs: now };
    map.set(key, entry);
    return entry;
  }
}

/** A rail whose credentials are incomplete answers `unavailable` on every call: nothing is sent. */
class UnconfiguredRail implements AcquirerPort {
  readonly code = 'unconfigured';
  constructor(private readonly message: string) {}
  private answer(): Promise<AcquirerResult<never>> {
    return Promise.resolve({ ok: false, kind: 'unavailable', message: this.message });
  }
  storeCard = () => this.answer();
  authorize = () => this.answer();
  getAuthorization = () => this.answer();
  capture = () => this.answer();
  cancel = () => this.answer();
  refund = () => this.answer();
  getRefund = () => this.answer();
  createPixCharge = () => this.answer();
  getPixCharge = () => this.answer();
  payPix = () => this.answer();
  expirePix = () => this.answer();
  registerBoleto = () => this.answer();
  getBoleto = () => this.answer();
  payBoleto = () => this.answer();
}

function railOrBroken<A>(cached: Cached<{ adapter: A }>): A | AcquirerPort {
  return cached.rail instanceof ConfigError
    ? new UnconfiguredRail(`the live rail's credentials are incomplete: ${cached.rail.message}`)
    : cached.rail.adapter;
}

/** The acquirer code a charge of this kind records: the serving rail's, or the simulator's. */
export function acquirerCodeFor(port: AcquirerPort, kind: RailKind): string {
  return port instanceof LiveAcquirer ? port.codeFor(kind) : port.code;
}
