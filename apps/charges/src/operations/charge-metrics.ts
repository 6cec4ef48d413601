// The business figures of docs/metrics.md that charges records: each counted once the transaction that made
// the change committed, so that a rolled-back change (a lost race, a failed write) is never counted.
import { afterCommit, type Tx } from '@pgw/platform-db';
import {
  CHARGES_AUTHORIZATIONS,
  CHARGES_CREATED,
  CHARGES_PAID_AMOUNT,
  CHARGES_REFUNDS,
  CHARGES_REFUNDS_AMOUNT,
  CHARGES_STATUS_CHANGES,
  counter,
} from '@pgw/platform-metrics';
import type { ChargeRow } from '../data/charge.repository';
import type { RefundRow } from '../data/refund.repository';

const createdMetric = counter(CHARGES_CREATED);
const statusMetric = counter(CHARGES_STATUS_CHANGES);
const paidAmountMetric = counter(CHARGES_PAID_AMOUNT);
const authorizationsMetric = counter(CHARGES_AUTHORIZATIONS);
const refundsMetric = counter(CHARGES_REFUNDS);
const refundedAmountMetric = counter(CHARGES_REFUNDS_AMOUNT);

/** The acquirer's answer to a card authorization, as the approval rate counts it. */
export type AuthorizationOutcome = 'approved' | 'declined' | 'failed';

const common = (charge: ChargeRow) => ({
  payment_method: charge.payment_method,
  livemode: String(charge.livemode),
});

export function countChargeCreated(trx: Tx, charge: ChargeRow): void {
  afterCommit(trx, () => createdMetric.add(1, common(charge)));
}

export function countChargeStatus(trx: Tx, charge: ChargeRow): void {
  afterCommit(trx, () => {
    statusMetric.add(1, { ...common(charge), status: charge.status });
    if (charge.status === 'paid') paidAmountMetric.add(charge.amount_cents, common(charge));
  });
}

export function countAuthorization(
  trx: Tx,
  charge: ChargeRow,
  outcome: AuthorizationOutcome,
): void {
  afterCommit(trx, () =>
    authorizationsMetric.add(1, {
      ...common(charge),
      'card.brand': charge.card_brand ?? 'unknown',
      outcome,
    }),
  );
}

export function countRefund(trx: Tx, charge: ChargeRow, refund: RefundRow): void {
  afterCommit(trx, () => {
    refundsMetric.add(1, { ...common(charge), status: refund.status });
    if (refund.status === 'succeeded')
      refundedAmountMetric.add(refund.amount_cents, common(charge));
  });
}
