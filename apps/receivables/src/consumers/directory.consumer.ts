import type { Db, Tx } from '@pgw/platform-db';
import { directoryConsumer as directoryCopy } from '@pgw/platform-directory';
import type { Clock, ConsumerDefinition } from '@pgw/platform-service';
import { awaitingCharges } from '../data/charges.repository';
import { lockTenantPricing, upsertPlan, upsertSeller } from '../data/directory.repository';
import { applyAdjustments, scheduleCharge } from '../operations/charges';
import { Work } from '../operations/context';

const AWAITING_PER_EVENT_MAX = 1_000;

/**
 * Local copies of sellers and pricing plans (highest version wins). The directory topic and the charges
 * topic are not ordered with each other, so a charge can arrive before its seller: it waits, and the
 * seller's (or plan's) event schedules it.
 */
export function directoryConsumer(db: Db, clock: Clock): ConsumerDefinition {
  /** After a change to the tenant's pricing: the tenant's charges that waited for it. */
  const scheduleAwaiting = async (
    trx: Tx,
    tenantId: string,
    requestId: string | null,
  ): Promise<void> => {
    const work = new Work(db, trx, clock, requestId);
    // After this transaction's change, before the scan: a charge committing now either sees the change or is
    // seen by the scan (lockTenantPricing).
    await lockTenantPricing(trx, tenantId);
    // Bounded per event; any left waiting are scheduled by the tenant's next directory event.
    for (const chargeId of await awaitingCharges(trx, tenantId, AWAITING_PER_EVENT_MAX)) {
      if ((await scheduleCharge(work, chargeId)) === 'scheduled')
        await applyAdjustments(work, chargeId);
    }
    await work.flush();
  };
  return directoryCopy(clock, {
    'gateway.seller-changed.v1': async (trx, event, now) => {
      if (await upsertSeller(trx, event, now))
        await scheduleAwaiting(trx, event.tenant_id, event.envelope.request_id);
    },
    'gateway.pricing-plan-changed.v1': async (trx, event, now) => {
      if (await upsertPlan(trx, event, now))
        await scheduleAwaiting(trx, event.tenant_id, event.envelope.request_id);
    },
  });
}
