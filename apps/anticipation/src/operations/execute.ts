// Execution (api-v1 "POST /anticipations", contract §4): one transaction that locks the tenant's
// treasury row, the seller's row and the chosen receivables; prices them again under the locks; refuses
// what is out of either limit; and records the anticipation, takes its receivables out of every later
// one, spends the treasury's cash, stores the Idempotency-Key's answer and writes the event to the
// outbox. All of it commits, or none of it.
import type { EventMap } from '@pgw/contracts';
import { assert, newId } from '@pgw/domain';
import { emit } from '@pgw/platform-bus';
import { afterCommit, type Db, type Tx } from '@pgw/platform-db';
import { ApiError } from '@pgw/platform-http';
import type { IdempotencySession } from '@pgw/platform-idempotency';
import {
  ANTICIPATION_EXECUTIONS,
  ANTICIPATION_FEE_AMOUNT,
  ANTICIPATION_GROSS_AMOUNT,
  counter,
} from '@pgw/platform-metrics';
import type { Clock } from '@pgw/platform-service';
import {
  addCashOut,
  anticipationFields,
  anticipationItemFields,
  insertAnticipation,
  type Anticipation,
} from '../data/anticipations.repository';
import { markAnticipated, type SellerScope } from '../data/receivables.repository';
import { anticipationResource, type AnticipationResource } from '../resources';
import { buildQuote } from './quote';

export const PRODUCER = 'anticipation';
const EVENT = 'anticipation.anticipation-executed.v1';

const executionsMetric = counter(ANTICIPATION_EXECUTIONS);
const grossMetric = counter(ANTICIPATION_GROSS_AMOUNT);
const feeMetric = counter(ANTICIPATION_FEE_AMOUNT);

export interface ExecuteDeps {
  db: Db;
  clock: Clock;
}

export async function executeAnticipation(
  deps: ExecuteDeps,
  scope: SellerScope,
  receivableIds: readonly string[] | undefined,
  requestId: string,
  session: IdempotencySession,
): Promise<AnticipationResource> {
  return deps.db.tx(async (trx) => {
    const now = deps.clock.now();
    const today = deps.clock.today();
    const quote = await buildQuote({ kind: 'lock', trx }, { scope, receivableIds, today });
    if (quote.items.length === 0)
      throw new ApiError(
        'receivable_not_eligible',
        `The seller has no receivable eligible for anticipation (pending, not anticipated, due after ${today}).`,
      );
    // A fee as large as the net pays the seller nothing: nothing to anticipate, so nothing is recorded.
    if (quote.totals.netCents <= 0) {
      throw new ApiError(
        'receivable_not_eligible',
        'receivable_ids: the anticipation fee takes the whole net amount; there is nothing to pay out.',
        'receivable_ids',
      );
    }
    if (!quote.exposure.within_limit) {
      const { limit_cents, outstanding_cents, projected_cents } = quote.exposure;
      throw new ApiError(
        'anticipation_limit_exceeded',
        `This anticipation would take the seller's exposure to ${projected_cents} cents (outstanding ${outstanding_cents}), above its limit of ${limit_cents} cents.`,
      );
    }
    if (!quote.treasury.within_limit) {
      const { available_cash_cents, requested_cash_out_cents } = quote.treasury;
      throw new ApiError(
        'treasury_limit_exceeded',
        `This anticipation pays out ${requested_cash_out_cents} cents; the treasury has ${available_cash_cents} cents available.`,
      );
    }

    const anticipation: Anticipation = {
      id: newId('ant_'),
      tenantId: scope.tenantId,
      livemode: scope.livemode,
      sellerId: scope.sellerId,
      status: 'succeeded',
      grossCents: quote.totals.grossCents,
      feeCents: quote.totals.feeCents,
      netCents: quote.totals.netCents,
      feeBpsPerMonth: quote.pricing.feeBpsPerMonth,
      settlementDelayDays: quote.pricing.settlementDelayDays,
      pricingPlanId: quote.pricing.pricingPlanId,
      executedOn: today,
      createdAt: now,
      items: quote.items.map((item) => {
        const original = quote.originals.get(item.receivableId);
        // Every receivable an execution prices comes from a locked row, which says where it came from.
        assert(original !== undefined, 'anticipation.priced-from-locked-row', {
          receivable_id: item.receivableId,
        });
        return { ...item, chargeId: original.chargeId, receivableVersion: original.version };
      }),
    };
    await insertAnticipation(trx, anticipation);
    await markAnticipated(
      trx,
      anticipation.items.map((i) => i.receivableId),
      anticipation.id,
    );
    await addCashOut(trx, scope.tenantId, scope.livemode, anticipation.netCents);
    const resource = anticipationResource(anticipation);
    await announce(deps.db, trx, anticipation, resource, requestId);
    await session.attach(trx, anticipation.id);
    await session.complete(trx, { status: 201, body: resource });
    // Counted once it committed: an execution that loses its transaction is no volume.
    afterCommit(trx, () => {
      const attributes = { livemode: String(anticipation.livemode) };
      executionsMetric.add(1, attributes);
      grossMetric.add(anticipation.grossCents, attributes);
      feeMetric.add(anticipation.feeCents, attributes);
    });
    return resource;
  });
}

/** The executed event, in the execution's own transaction (the outbox): it exists if and only if the anticipation does. */
async function announce(
  db: Db,
  trx: Tx,
  a: Anticipation,
  resource: AnticipationResource,
  requestId: string,
): Promise<void> {
  const body: Omit<EventMap[typeof EVENT], 'envelope'> = {
    anticipation_id: a.id,
    ...anticipationFields(a),
    executed_on: a.executedOn,
    items: a.items.map(anticipationItemFields),
    created_at: a.createdAt.getTime(),
    resource_json: JSON.stringify(resource),
  };
  // Keyed by seller: one seller's anticipations reach receivables in the order they were executed.
  await emit(db, trx, {
    type: EVENT,
    key: a.sellerId,
    producer: PRODUCER,
    tenantId: a.tenantId,
    livemode: a.livemode,
    requestId,
    occurredAtMs: a.createdAt.getTime(),
    body,
  });
}
