import type { CreatePixChargeRequestBody } from '@pgw/acquirer';
import { buildBrCode } from '@pgw/domain';
import type { Clock } from '@pgw/platform-service';
import type { PixRow, SimRepository, SimStore } from '../data/sim-store';
import { simId } from '../http';
import { pixExpiresAt } from '@pgw/acquirer-simulator-domain/rules';
import { insertedOrTaken, unlessReused, type Created } from './created';

const MERCHANT_NAME = 'PGW PAGAMENTOS';
const MERCHANT_CITY = 'SAO PAULO';
/** The PSP's location host; a dynamic BR Code carries the location, and the txid lives behind it. */
const LOCATION_BASE = 'pix.acquirer-sim.test/v2/cob/';
const TXID_CHARS = 32;

/** Locks a charge and expires it first when its time has passed: every answer shows the current status. */
async function lockCurrent(
  repo: SimRepository,
  reference: string,
  now: Date,
): Promise<PixRow | undefined> {
  const row = await repo.lockPix(reference);
  if (row === undefined || !pixExpiresAt(row, now)) return row;
  return repo.updatePix(reference, { status: 'expired' });
}

export type CreatePixResult = Created<PixRow, 'reference_reused'>;

/** The Pix PSP: a dynamic charge with a BR Code, paid on the operator's command, expired on time or on demand. */
export async function createPixCharge(
  store: SimStore,
  clock: Clock,
  body: CreatePixChargeRequestBody,
): Promise<CreatePixResult> {
  const now = clock.now();
  const txid = simId('', TXID_CHARS);
  const row: PixRow = {
    txid,
    reference: body.reference,
    amount_cents: body.amount_cents,
    expires_in: body.expires_in,
    qr_code: buildBrCode({
      merchantName: MERCHANT_NAME,
      merchantCity: MERCHANT_CITY,
      amountCents: body.amount_cents,
      txid: '***',
      locationUrl: LOCATION_BASE + txid,
    }),
    status: 'active',
    expires_at: new Date(now.getTime() + body.expires_in * 1000),
    paid_at: null,
    created_at: now,
  };
  const result = await store.tx(async (repo) =>
    insertedOrTaken(await repo.insertPix(row), () => lockCurrent(repo, body.reference, now)),
  );
  return unlessReused(
    result,
    (stored) =>
      Number(stored.amount_cents) === body.amount_cents && stored.expires_in === body.expires_in,
  );
}

export function pixCharge(
  store: SimStore,
  clock: Clock,
  reference: string,
): Promise<PixRow | undefined> {
  return store.tx((repo) => lockCurrent(repo, reference, clock.now()));
}

/** Pays an active charge; a paid one is answered as it is, an expired one refused. */
export function payPix(
  store: SimStore,
  clock: Clock,
  reference: string,
): Promise<PixRow | undefined | 'pix_not_payable'> {
  const now = clock.now();
  return settlePix(store, reference, now, 'paid', 'pix_not_payable', { paid_at: now });
}

/** Expires an active charge; an expired one is answered as it is, a paid one refused. */
export function expirePix(
  store: SimStore,
  clock: Clock,
  reference: string,
): Promise<PixRow | undefined | 'pix_not_expirable'> {
  return settlePix(store, reference, clock.now(), 'expired', 'pix_not_expirable', {});
}

/**
 * Moves an active charge to `to` (paid, expired), once: a charge already there is answered as it is, one
 * that reached the other end first is refused with `refusal`; undefined when there is none.
 */
async function settlePix<R extends 'pix_not_payable' | 'pix_not_expirable'>(
  store: SimStore,
  reference: string,
  now: Date,
  to: 'paid' | 'expired',
  refusal: R,
  patch: Partial<PixRow>,
): Promise<PixRow | undefined | R> {
  const row = await store.tx(async (repo) => {
    const current = await lockCurrent(repo, reference, now);
    if (current === undefined || current.status !== 'active') return current;
    return repo.updatePix(current.reference, { status: to, ...patch });
  });
  if (row === undefined || row.status === to) return row;
  return refusal;
}
