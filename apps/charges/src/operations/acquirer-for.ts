import type { AcquirerPort, RailKind } from '@pgw/acquirer';
import type { ChargeRow } from '../data/charge.repository';
import type { ChargesDeps } from './deps';

/** The rail that serves a payment method: both card methods go to the card acquirer. */
export function railKindOf(paymentMethod: ChargeRow['payment_method']): RailKind {
  return paymentMethod === 'pix' ? 'pix' : paymentMethod === 'boleto' ? 'boleto' : 'card';
}

/** The acquirer of a charge's tenant and mode: the simulator in test mode, the tenant's live rails in live mode. */
export function acquirerFor(deps: ChargesDeps, charge: Pick<ChargeRow, 'tenant_id' | 'livemode'>): Promise<AcquirerPort> {
  return deps.acquirers.forScope({ tenantId: charge.tenant_id, livemode: charge.livemode });
}
