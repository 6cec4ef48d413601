import type { Tx } from '@pgw/platform-db';
import { transition, type ChargeTrigger } from '../domain/charge';
import { lockCharge, updateCharge, type ChargePatch, type ChargeRow } from '../data/charge.repository';
import { announceChargeStatus, type Announcer } from './announce';

/**
 * Moves a charge by `trigger` under its row lock, only if it is still in the status the caller read
 * (compare-and-set), and writes the new status's event. `moved` is false when something else (a job, a
 * request, another replica) changed it first; `charge` is then the row as it is.
 */
export async function moveCharge(trx: Tx, read: ChargeRow, trigger: ChargeTrigger, patch: ChargePatch, now: Date, announcer: Announcer): Promise<{ moved: boolean; charge: ChargeRow }> {
  const charge = await lockCharge(trx, null, read.id);
  if (charge === undefined) throw new Error(`charge ${read.id} vanished`);
  if (charge.status !== read.status) return { moved: false, charge };
  const next = transition({ status: charge.status, statusBeforeChargeback: charge.status_before_chargeback }, trigger);
  if (next === null) return { moved: false, charge };
  const updated = await updateCharge(trx, charge.id, { ...patch, status: next, updated_at: now });
  await announceChargeStatus(announcer, trx, updated);
  return { moved: true, charge: updated };
}
