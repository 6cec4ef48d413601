// How a live payment reaches a charge: the Pix PSP and the boleto bank confirm payments on their own
// time, so two jobs ask them and move the charge exactly as the simulator's payment does (the
// `payment_confirmed` trigger: charge-paid, then receivables and the ledger as in test mode).
// - pix-payments: every pending live Pix charge is looked up at the PSP that made it by reference (GET
//   /cob/{txid}); a paid one is paid here. The PSP's webhook (`confirmNotifiedPix`) does the same for the
//   Pix it names, at once: its body is a hint, never trusted for the payment itself.
// - boleto-exchange: for every bank account a tenant's boleto rail names, or that pending live boletos
//   were registered on, the CNAB 240 exchange writes the remittance of the slips registered since the
//   last run and reads the bank's return files; a liquidation pays its charge. Movements are delivered at least once: the compare-and-set on the
//   charge's status makes a repeat change nothing.
import { railRecordOf, railsOfRecord, type BoletoProvider, type BoletoReturnEvent, type RailChoice, type ReceivedPix } from '@pgw/acquirer';
import type { Db } from '@pgw/platform-db';
import { findChargeById, findLivePixByTxid, pendingBoletoRails, pendingLivePix, type ChargeRow } from '../data/charge.repository';
import type { RefundRow } from '../data/refund.repository';
import { boletoRails } from '../data/live-rails.repository';
import { acquirerFor } from './acquirer-for';
import type { Announcer } from './announce';
import type { ChargesDeps } from './deps';
import { reconcileRefund } from './jobs';
import { moveCharge } from './move-charge';

const announcer = (db: Db): Announcer => ({ db, requestId: null });

/** Pays a pending charge that its provider says was paid; false when it was not pending (already moved). */
async function confirmPaid(deps: ChargesDeps, charge: ChargeRow, paidAt: Date): Promise<boolean> {
  const { moved } = await deps.db.tx((trx) => moveCharge(trx, charge, 'payment_confirmed', { paid_at: paidAt }, deps.clock.now(), announcer(deps.db)));
  return moved;
}

/** Job pix-payments: pending live Pix charges that their PSP reports paid. */
export async function collectPixPayments(deps: ChargesDeps): Promise<number> {
  let paid = 0;
  let after: string | null = null;
  // Bounded like every job's batch walk: a page at a time, each after the last row of the one before.
  for (;;) {
    const cursor: string | null = after;
    const rows: ChargeRow[] = await deps.db.read((q) => pendingLivePix(q, cursor, deps.config.batchSizeMax));
    for (const charge of rows) {
      const acquirer = await acquirerFor(deps, charge);
      const pix = await acquirer.getPixCharge(charge.id);
      // Not paid, or the PSP cannot say now: the next run asks again.
      if (!pix.ok || pix.value.status !== 'paid') continue;
      if (await confirmPaid(deps, charge, pix.value.paidAt === null ? deps.clock.now() : new Date(pix.value.paidAt))) paid++;
    }
    const last = rows.at(-1);
    if (rows.length < deps.config.batchSizeMax || last === undefined) return paid;
    after = last.id;
  }
}

/**
 * A PSP's notification (`{ pix: [...] }`): each Pix it names that paid a live charge of ours is confirmed
 * at that charge's PSP (GET /cob/{txid}) before the charge is paid, and each refund of it still processing
 * here is looked up again. A txid that is not ours, or a charge already moved, changes nothing, so a
 * repeated or forged notification costs look-ups and nothing else.
 */
export async function confirmNotifiedPix(deps: ChargesDeps, received: readonly ReceivedPix[]): Promise<{ paid: number; refundsSettled: number }> {
  let paid = 0;
  let refundsSettled = 0;
  for (const pix of received) {
    if (pix.txid === null) continue;
    const txid = pix.txid;
    const charge = await deps.db.read((q) => findLivePixByTxid(q, txid));
    if (charge === undefined) continue;
    if (charge.status === 'pending') {
      const acquirer = await acquirerFor(deps, charge);
      const confirmed = await acquirer.getPixCharge(charge.id);
      if (confirmed.ok && confirmed.value.status === 'paid' && (await confirmPaid(deps, charge, confirmed.value.paidAt === null ? deps.clock.now() : new Date(confirmed.value.paidAt)))) paid++;
    }
    if (pix.refunds.some((r) => r.status !== 'processing')) {
      const processing = await deps.db.read((q) => q('refunds').where({ charge_id: charge.id, status: 'processing' }).select<RefundRow[]>('*'));
      for (const refund of processing) if (await reconcileRefund(deps, refund)) refundsSettled++;
    }
  }
  return { paid, refundsSettled };
}

/** Job boleto-exchange: the CNAB 240 file exchange of every bank account live tenants use. */
export async function exchangeBoletoFiles(deps: ChargesDeps, log: { warn(fields: object, message: string): void }): Promise<number> {
  const configured = await deps.db.read((q) => boletoRails(q));
  // Tenants that share one bank account (one credentials name) share its files: one exchange for them all.
  const accounts = new Map<string, { tenants: Set<string>; choice: RailChoice<BoletoProvider> }>();
  for (const { tenantId, rails } of configured) {
    if (rails.boleto === null) continue;
    const key = railRecordOf(rails.boleto);
    const account = accounts.get(key) ?? { tenants: new Set<string>(), choice: rails.boleto };
    account.tenants.add(tenantId);
    accounts.set(key, account);
  }
  // An account no tenant uses any more still has the slips registered there before the switch.
  for (const record of await deps.db.read((q) => pendingBoletoRails(q))) {
    const choice = railsOfRecord('boleto', record)?.boleto ?? null;
    if (choice !== null && !accounts.has(record)) accounts.set(record, { tenants: new Set<string>(), choice });
  }
  let paid = 0;
  for (const [key, { tenants, choice }] of accounts) {
    const rail = deps.acquirers.boletoRail(choice);
    if (rail instanceof Error) {
      log.warn({ provider: choice.provider, credentials: choice.credentials }, `boleto exchange skipped: ${rail.message}`);
      continue;
    }
    const onReturn = async (event: BoletoReturnEvent): Promise<void> => {
      if (event.return.outcome !== 'paid' || event.reference === null || event.boleto === null) return;
      const reference = event.reference;
      const charge = await deps.db.read((q) => findChargeById(q, reference));
      // A slip of ours that is not a live boleto charge registered on this account (or, made before rails
      // were recorded, of a tenant on it) is not this job's to pay.
      if (charge === undefined || !charge.livemode || charge.payment_method !== 'boleto' || charge.status !== 'pending') return;
      if (charge.acquirer_rail === null ? !tenants.has(charge.tenant_id) : charge.acquirer_rail !== key) return;
      if (await confirmPaid(deps, charge, event.boleto.paidAt === null ? deps.clock.now() : new Date(event.boleto.paidAt))) paid++;
    };
    await rail.exchange.adapter.exchangeFiles({ outbox: rail.exchange.outbox, inbox: rail.exchange.inbox, onReturn });
  }
  return paid;
}
