import { SIM_PATHS } from '@pgw/acquirer';
import { buildApp, principalPlugin, type App, type TestPrincipals } from '@pgw/platform-http';
import { systemClock, type Clock } from '@pgw/platform-service';
import type { FastifyInstance } from 'fastify';
import type { AuthorizationRow, BoletoRow, PixRow, RefundRow } from '../data/sim-store';
import type { HeldAnswers } from '../fault-mode';
import { registerSimulator } from '../simulator';
import { MemorySimStore } from './memory-sim-store';

/**
 * The acquirer simulator for another service's specs: the same routes and rules as apps/acquirer-sim, its
 * state in memory (MemorySimStore), and what a spec needs to see and hold: every request it handled, the
 * authorize requests' references and security codes (kept in this object only, as the acquirer's side
 * of "forwarded at sale time"), and gates that hold an authorize or a capture's answer.
 */
export class TestAcquirerSim {
  readonly store = new MemorySimStore();
  /** By the caller's reference: the rows themselves (a spec may change them). */
  readonly authorizations: Map<string, AuthorizationRow> = this.store.authorizations;
  readonly refunds: Map<string, RefundRow> = this.store.refunds;
  readonly pix: Map<string, PixRow> = this.store.pix;
  readonly boletos: Map<string, BoletoRow> = this.store.boletos;
  /** Every request that reached a route (not refused by the unavailable mode): `METHOD url`. */
  readonly calls: string[] = [];
  /** Every authorize request's reference, in order (replays included). */
  readonly authorizeCalls: string[] = [];
  /** The security code each authorize request carried. */
  readonly securityCodes = new Map<string, string | null>();
  /** While set, authorize requests wait for it once recorded: a spec holds a charge at the acquirer. */
  authorizeGate: Promise<void> | null = null;
  /** While set, a capture's answer waits for it once the authorization is captured. */
  captureGate: Promise<void> | null = null;
  /** While set, an authorize's answer waits for it once the authorization is made (a lookup finds it). */
  authorizeAnswerGate: Promise<void> | null = null;
  private held: HeldAnswers | null = null;

  /** `timeoutDelayMs`: how long the timeout mode holds an answer (the caller's adapter gives up before). */
  constructor(private readonly options: { clock?: Clock; timeoutDelayMs?: number } = {}) {}

  /** A card in the card store, as the vault would have stored it: its card_ref. */
  addCard(pan: string): string {
    return this.store.addCard(pan);
  }

  /** Releases the answers the timeout mode holds (closing the app does too). */
  releaseHeld(): void {
    this.held?.releaseAll();
  }

  async build(principals: TestPrincipals): Promise<App> {
    const app = principals.bind(buildApp({ name: 'acquirer-sim', log: { level: 'silent' } }));
    await app.register(principalPlugin, {
      publicKey: principals.publicKey,
      publicRoutes: Object.values(SIM_PATHS),
    });
    this.held = await registerSimulator(app as unknown as FastifyInstance, {
      store: this.store,
      clock: this.options.clock ?? systemClock,
      config: { timeoutDelayMs: this.options.timeoutDelayMs ?? 600, key: null },
      instrument: (scope) => this.instrument(scope),
    });
    await app.ready();
    return app;
  }

  private instrument(scope: FastifyInstance): void {
    scope.addHook('onRequest', async (request) => {
      this.calls.push(`${request.method} ${request.url}`);
    });
    scope.addHook('preHandler', async (request) => {
      if (request.method !== 'POST' || request.routeOptions.url !== SIM_PATHS.authorizations)
        return;
      const body = request.body as { reference: string; security_code?: string };
      this.authorizeCalls.push(body.reference);
      this.securityCodes.set(body.reference, body.security_code ?? null);
      if (this.authorizeGate !== null) await this.authorizeGate;
    });
    scope.addHook('onSend', async (request, reply, payload) => {
      if (
        request.routeOptions.url === SIM_PATHS.capture &&
        reply.statusCode === 200 &&
        this.captureGate !== null
      )
        await this.captureGate;
      if (
        request.method === 'POST' &&
        request.routeOptions.url === SIM_PATHS.authorizations &&
        this.authorizeAnswerGate !== null
      )
        await this.authorizeAnswerGate;
      return payload;
    });
  }
}
