import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SIM_KEY_HEADER, type ProviderMode } from '@pgw/acquirer';
import type { SimConfig } from './config';
import type { SimStore } from './data/sim-store';

// Fault modes (contract §5), applied to every /acquirer/v1 route of the scope they are installed on:
// - normal: answer.
// - unavailable: answer 503 before doing anything (the caller learns that nothing happened).
// - timeout: do the work, commit it, then hold the answer for `timeoutDelayMs`, beyond the caller's
//   deadline: the caller cannot know the outcome, and a later lookup by reference tells it.
// The mode lives in the store: in the simulator app's database, so that it survives restarts and holds
// for every replica (the one told applies it at once, the others within a second: PgSimStore.readMode).

function sameKey(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Installs the key check and the fault modes on an encapsulated scope (the simulator's public routes). */
export function installFaultModes(
  scope: FastifyInstance,
  store: SimStore,
  config: SimConfig,
  heldAnswers: HeldAnswers,
): void {
  const modes = new WeakMap<FastifyRequest, ProviderMode>();

  scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (config.key !== null && !sameKey(request.headers[SIM_KEY_HEADER], config.key)) {
      return reply.code(401).send({
        error: {
          type: 'authentication_error',
          code: 'acquirer_key_invalid',
          message: 'Unknown caller.',
          param: null,
        },
        request_id: request.id,
      });
    }
    const mode = await store.readMode();
    if (mode === 'unavailable') {
      return reply.code(503).send({
        error: {
          type: 'api_error',
          code: 'service_unavailable',
          message: 'The acquirer is unavailable.',
          param: null,
        },
        request_id: request.id,
      });
    }
    modes.set(request, mode);
    return undefined;
  });

  scope.addHook(
    'onSend',
    async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
      if (modes.get(request) === 'timeout') await heldAnswers.hold(config.timeoutDelayMs);
      return payload;
    },
  );
}

/** The answers held by the timeout mode; released at once when the app closes, so shutdown never waits. */
export class HeldAnswers {
  private readonly pending = new Set<() => void>();

  hold(delayMs: number): Promise<void> {
    return new Promise((resolve) => {
      const release = () => {
        clearTimeout(timer);
        this.pending.delete(release);
        resolve();
      };
      const timer = setTimeout(release, delayMs);
      this.pending.add(release);
    });
  }

  releaseAll(): void {
    for (const release of [...this.pending]) release();
  }
}
