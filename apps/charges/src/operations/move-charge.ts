import { assert } from '@pgw/domain';
import type { Tx } from '@pgw/platform-db';
import { transition, type ChargeTrigger } from '@pgw/charges-domain/charge';
import {
  lockCharge,
  updateCharge,
  type ChargePatch,
  type ChargeRow,
} from '../data/charge.repository';
import { announceChargeStatus, type Announcer } from './announce';
import type { ChargesDeps } from './deps';

/**
 * Moves a charge by `trigger` under its row lock, only if it is still in the status the caller read
 * (compare-and-set), and writes the new status's event. `moved` is false when something else (a job, a
 * request, another replica) changed it first; `charge` is then the row as it is.
 */
export async function moveCharge(
  trx: Tx,
  read: ChargeRow,
  trigger: ChargeTrigger,
  patch: ChargePatch,
  now: Date,
  announcer: Announcer,
): Promise<{ moved: boolean; charge: ChargeRow }> {
  const charge = await lockCharge(trx, null, read.id);
  assert(charge !== undefined, 'charge.present-under-lock', { charge_id: read.id });
  if (charge.status !== read.status) return { moved: false, charge };
  const next = transition(
    { status: charge.status, statusBeforeChargeback: charge.status_before_chargeback },
    trigger,
  );
  if (next === null) return { moved: false, charge };
  const updated = await updateCharge(trx, charge.id, { ...patch, status: next, updated_at: now });
  await announceChargeStatus(announcer, trx, updated);
  return { moved: true, charge: updated };
}

/**
 * Pays a pending charge that its provider says was paid, at `providerPaidAt` (now when the provider does
 * not say when), in a transaction of its own; a charge no longer pending is left as it is (`moved` false).
 */
export function confirmPayment(
  deps: Pick<ChargesDeps, 'db' | 'clock'>,
  charge: ChargeRow,
  providerPaidAt: string | null,
  announcer: Announcer,
): Promise<{ moved: boolean; charge: ChargeRow }> {
  const paidAt = providerPaidAt === null ? deps.clock.now() : new Date(providerPaidAt);
  return deps.db.tx((trx) =>
    moveCharge(trx, charge, 'payment_confirmed', { paid_at: paidAt }, deps.clock.now(), announcer),
  );
}
