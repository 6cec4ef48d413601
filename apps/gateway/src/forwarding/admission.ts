import { ApiError } from '@pgw/platform-http';
import { counter, GATEWAY_ADMISSION_REJECTED } from '@pgw/platform-metrics';
import type { ServiceName } from '../routes.table';

// Admission control (issue 10). Without it an overload queues without bound, inside the gateway's HTTP
// client and inside the service, and every request ends late. With it each service has at most
// `inFlightMax` requests of this replica at a time; the next one is answered 503 at once, with
// Retry-After, and never forwarded: those admitted stay fast, the others retry (an Idempotency-Key makes
// the retry safe: contract §3 keeps no 5xx).

/** How long a refused client should wait before retrying, in seconds (the Retry-After header). */
export const ADMISSION_RETRY_AFTER_SECONDS = 1;

/** Gives back a slot; calling it again does nothing, so every way a request can end may call it. */
export type Release = () => void;

export class Admission {
  private readonly inFlightByService = new Map<ServiceName, number>();
  private readonly rejected = counter(GATEWAY_ADMISSION_REJECTED);

  constructor(readonly inFlightMax: number) {
    if (!Number.isSafeInteger(inFlightMax) || inFlightMax < 1) throw new Error(`inFlightMax must be a positive integer, got ${inFlightMax}`);
  }

  /** Takes a slot of `service`, or returns null when all of its slots are taken. */
  tryEnter(service: ServiceName): Release | null {
    const inFlight = this.inFlight(service);
    if (inFlight >= this.inFlightMax) {
      this.rejected.add(1, { service });
      return null;
    }
    this.inFlightByService.set(service, inFlight + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = this.inFlight(service) - 1;
      if (now < 0) throw new Error(`admission: ${service} released more slots than it took`);
      this.inFlightByService.set(service, now);
    };
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

/** The answer to a request refused for want of a slot: contract §2's body, 503, Retry-After. */
export function overCapacity(service: ServiceName): ApiError {
  return new ApiError('service_unavailable', `The ${service} service is at capacity; retry in ${ADMISSION_RETRY_AFTER_SECONDS} s.`, null, {
    'retry-after': String(ADMISSION_RETRY_AFTER_SECONDS),
  });
}
