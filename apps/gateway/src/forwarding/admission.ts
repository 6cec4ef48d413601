import { assert } from '@pgw/domain';
import { LoadShedError } from '@pgw/platform-http';
import { counter, GATEWAY_ADMISSION_REJECTED } from '@pgw/platform-metrics';
import type { ServiceName } from '../routes.table';
import { AdaptiveLimit } from './adaptive-limit';

// Admission control (issues 10 and 18). Without it an overload queues without bound, inside the gateway's
// HTTP client and inside the service, and every request ends late. With it each service has at most its
// adaptive limit of this replica's requests at a time (adaptive-limit.ts: between 4 and `inFlightMax`,
// moved by the latency of the answers); the next one is answered 503 at once, with Retry-After, and never
// forwarded: those admitted stay fast, the others retry (an Idempotency-Key makes the retry safe:
// contract §3 keeps no 5xx).

/**
 * The floor of every service's limit: a few requests always go through, whatever the latency. Latency
 * cannot tell a queue from a slow dependency (an acquirer timing out makes every charge late while the
 * service's CPU idles); with a floor of 1 a handful of slow authorizations would have the gateway refuse
 * the same service's fast reads and idempotent replays. Four in flight keep a service that does 40/s at
 * ~100 ms of queue when it is really saturated.
 */
const LIMIT_MIN = 4;

/** How long a refused client should wait before retrying, in seconds (the Retry-After header). */
export const ADMISSION_RETRY_AFTER_SECONDS = 1;

/**
 * Gives back a slot, `failed` when the service gave no answer (unreachable, reset, past the deadline);
 * calling it again does nothing, so every way a request can end may call it.
 */
export type Release = (outcome?: { failed: boolean }) => void;

export interface AdmissionSettings {
  /** The most requests in flight per service (UPSTREAM_IN_FLIGHT_MAX): every limit's ceiling. */
  inFlightMax: number;
  /** The latency the limits keep the answers under (UPSTREAM_LATENCY_TARGET_MS). */
  latencyTargetMs: number;
  /** Milliseconds, monotonic; tests step it. */
  nowMs?: () => number;
}

export class Admission {
  readonly inFlightMax: number;
  private readonly inFlightByService = new Map<ServiceName, number>();
  private readonly limitByService = new Map<ServiceName, AdaptiveLimit>();
  private readonly rejected = counter(GATEWAY_ADMISSION_REJECTED);
  private readonly nowMs: () => number;

  constructor(private readonly settings: AdmissionSettings) {
    const { inFlightMax, latencyTargetMs } = settings;
    if (!Number.isSafeInteger(inFlightMax) || inFlightMax < 1)
      throw new Error(`inFlightMax must be a positive integer, got ${inFlightMax}`);
    if (!(latencyTargetMs > 0))
      throw new Error(`latencyTargetMs must be positive, got ${latencyTargetMs}`);
    this.inFlightMax = inFlightMax;
    this.nowMs = settings.nowMs ?? (() => performance.now());
  }

  /**
   * Takes a slot of `service`, or returns null when its limit is reached. `adapts` false for requests
   * whose latency says nothing of the service's queue (the operator's jobs run for seconds by design):
   * they take a slot but their answers move no limit.
   */
  tryEnter(service: ServiceName, adapts = true): Release | null {
    const inFlight = this.inFlight(service);
    const limit = this.limitOf(service);
    if (inFlight >= limit.limit) {
      this.rejected.add(1, { service });
      return null;
    }
    this.inFlightByService.set(service, inFlight + 1);
    const admittedAtMs = this.nowMs();
    let released = false;
    return (outcome) => {
      if (released) return;
      released = true;
      const now = this.inFlight(service) - 1;
      assert(now >= 0, 'admission.released-at-most-taken', { service });
      this.inFlightByService.set(service, now);
      if (!adapts) return;
      const nowMs = this.nowMs();
      limit.onSample({
        latencyMs: nowMs - admittedAtMs,
        inFlight: inFlight + 1,
        failed: outcome?.failed ?? false,
        nowMs,
      });
    };
  }

  /**
   * Refuses now (503, counted as a rejection) when `service` is at its limit, without taking a slot: the
   * cheap check before the work a request needs to be forwarded (the gateway's own reads). tryEnter
   * still decides when the request is forwarded.
   */
  assertRoom(service: ServiceName): void {
    if (this.inFlight(service) < this.limit(service)) return;
    this.rejected.add(1, { service });
    throw overCapacity(service);
  }

  /** The requests `service` may have in flight now, by its adaptive limit. */
  limit(service: ServiceName): number {
    return this.limitOf(service).limit;
  }

  /** Every service's limit now (the services forwarded to since the start). */
  limits(): Partial<Record<ServiceName, number>> {
    return Object.fromEntries(
      [...this.limitByService].map(([service, limit]) => [service, limit.limit]),
    );
  }

  private limitOf(service: ServiceName): AdaptiveLimit {
    let limit = this.limitByService.get(service);
    if (limit === undefined) {
      limit = new AdaptiveLimit({
        limitMax: this.settings.inFlightMax,
        limitMin: Math.min(this.settings.inFlightMax, LIMIT_MIN),
        latencyTargetMs: this.settings.latencyTargetMs,
      });
      this.limitByService.set(service, limit);
    }
    return limit;
  }

  /** Requests forwarded to `service` by this replica and not yet answered. */
  inFlight(service: ServiceName): number {
    return this.inFlightByService.get(service) ?? 0;
  }

  /** The count of every service forwarded to since the start (0 when none is in flight now). */
  snapshot(): Partial<Record<ServiceName, number>> {
    return Object.fromEntries(this.inFlightByService);
  }
}

/** The answer to a request refused for want of a slot: contract §2's body, 503, Retry-After; logged at debug. */
export function overCapacity(service: ServiceName): LoadShedError {
  return new LoadShedError(
    'service_unavailable',
    `The ${service} service is at capacity; retry in ${ADMISSION_RETRY_AFTER_SECONDS} s.`,
    null,
    {
      'retry-after': String(ADMISSION_RETRY_AFTER_SECONDS),
    },
  );
}
