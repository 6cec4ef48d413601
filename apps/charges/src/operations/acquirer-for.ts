import type { AcquirerPort, RailKind } from '@pgw/acquirer';
import type { ChargeRow } from '../data/charge.repository';
import type { ChargesDeps } from './deps';

/** The rail that serves a payment method: both card methods go to the card acquirer. */
export function railKindOf(paymentMethod: ChargeRow['payment_method']): RailKind {
  return paymentMethod === 'pix' ? 'pix' : paymentMethod === 'boleto' ? 'boleto' : 'card';
}

/**
 * The acquirer of a charge: the rail that served it when it was made (its capture, refunds and look-ups
 * must reach the account that holds it, whatever the tenant's rails are now); for a charge made before
 * rails were recorded, the tenant's rails in its mode.
 */
export function acquirerFor(
  deps: ChargesDeps,
  charge: Pick<ChargeRow, 'tenant_id' | 'livemode' | 'payment_method' | 'acquirer_rail'>,
): Promise<AcquirerPort> {
  if (charge.acquirer_rail !== null)
    return Promise.resolve(
      deps.acquirers.forRecordedRail(
        charge.livemode,
        railKindOf(charge.payment_method),
        charge.acquirer_rail,
      ),
    );
  return deps.acquirers.forScope({ tenantId: charge.tenant_id, livemode: charge.livemode });
}
