// How a live payment reaches a charge: the Pix PSP and the boleto bank confirm payments on their own
// time, so two jobs ask them and move the charge exactly as the simulator's payment does (the
// `payment_confirmed` trigger: charge-paid, then receivables and the ledger as in test mode).
// - the PSP's webhook (`confirmNotifiedPix`): each Pix a notification names is confirmed at the PSP (GET
//   /cob/{txid}) and its charge paid, at once: the body is a hint, never trusted for the payment itself.
// - pix-payments, the fallback for a lost notification: each Pix account pending live Pix charges wait on
//   lists the Pix it received (GET /pix?inicio&fim) since the oldest of them was made, and each is
//   confirmed as a notification is.
// - boleto-exchange: for every bank account a tenant's boleto rail names, or that pending live boletos
//   were registered on, the CNAB 240 exchange writes the remittance of the slips registered since the
//   last run and reads the bank's return files; a liquidation pays its charge. Movements are delivered at least once: the compare-and-set on the
//   charge's status makes a repeat change nothing.
import {
  DropFolderUnavailableError,
  railRecordOf,
  railsOfRecord,
  type BoletoProvider,
  type BoletoReturnEvent,
  type RailChoice,
  type ReceivedPix,
} from '@pgw/acquirer';
import type { Db } from '@pgw/platform-db';
import {
  findChargeById,
  findLivePixByTxid,
  pendingBoletoRails,
  pendingLivePixAccounts,
  type ChargeRow,
} from '../data/charge.repository';
import type { RefundRow } from '../data/refund.repository';
import { boletoRails } from '../data/live-rails.repository';
import { acquirerFor } from './acquirer-for';
import type { Announcer } from './announce';
import type { ChargesDeps } from './deps';
import { reconcileRefund } from './jobs';
import { confirmPayment } from './move-charge';

const announcer = (db: Db): Announcer => ({ db, requestId: null });

/** Pays a pending charge that its provider says was paid; false when it was not pending (already moved). */
async function confirmPaid(
  deps: ChargesDeps,
  charge: ChargeRow,
  providerPaidAt: string | null,
): Promise<boolean> {
  const { moved } = await confirmPayment(deps, charge, providerPaidAt, announcer(deps.db));
  return moved;
}

type Log = { warn(fields: object, message: string): void };

/**
 * The client of a rail a job asks, or null when there is none to ask (its credentials are missing or
 * unusable): `job` then warns and passes the rail, which the next run tries again.
 */
function usable<T>(client: T | Error, choice: RailChoice<string>, job: string, log: Log): T | null {
  if (!(client instanceof Error)) return client;
  log.warn(
    { provider: choice.provider, credentials: choice.credentials },
    `${job} skipped: ${client.message}`,
  );
  return null;
}

/**
 * The oldest Pix the poll asks for: a live Pix charge's QR code is valid for a day at most (the adapter's
 * bound on `expires_in`), so a payment older than that, plus a day's margin for a job that did not run, paid
 * no charge that is still pending and payable.
 */
const PIX_POLL_WINDOW_MS_MAX = 2 * 86_400_000;
/** The PSP's clock and ours may differ; the window starts this much before the oldest pending charge. */
const PIX_POLL_SKEW_MS = 5 * 60_000;

/**
 * Job pix-payments, the fallback for a lost notification: each Pix account that pending live Pix charges
 * wait on is asked for the Pix it received (GET /pix?inicio&fim) since the oldest of them was made — a
 * Pix received before a charge existed cannot have paid it — and every one that names a pending charge of
 * that account is confirmed and paid as a notification would be (`confirmNotifiedPix`). A payment seen by
 * both the webhook and the poll pays its charge once: the charge moves only from pending.
 */
export async function collectPixPayments(deps: ChargesDeps, log: Log): Promise<number> {
  const waiting = await deps.db.read((q) => pendingLivePixAccounts(q));
  // Since when each account is asked: the oldest pending charge on it.
  const since = new Map<string, Date>();
  for (const { acquirer_rail: recorded, tenant_id: tenantId, oldest } of waiting) {
    // A charge made before rails were recorded is its tenant's Pix account now.
    const record = recorded ?? (await deps.acquirers.railFor({ tenantId, livemode: true }, 'pix'));
    const known = since.get(record);
    if (known === undefined || oldest < known) since.set(record, oldest);
  }
  let paid = 0;
  const now = deps.clock.now();
  for (const [record, oldest] of since) {
    const choice = railsOfRecord('pix', record)?.pix ?? null;
    // The simulator's sandbox, or a rail this code does not know: no PSP to ask.
    if (choice === null) continue;
    const account = usable(deps.acquirers.pixAccount(choice), choice, 'pix poll', log);
    if (account === null) continue;
    const from = Math.max(
      oldest.getTime() - PIX_POLL_SKEW_MS,
      now.getTime() - PIX_POLL_WINDOW_MS_MAX,
    );
    const listed = await account.listReceivedPix({
      from: new Date(from).toISOString(),
      to: new Date(now.getTime() + PIX_POLL_SKEW_MS).toISOString(),
    });
    if (!listed.ok) {
      // The PSP cannot answer now: the next run asks for the same window again.
      log.warn(
        { provider: choice.provider, credentials: choice.credentials, kind: listed.kind },
        `pix poll failed: ${listed.message}`,
      );
      continue;
    }
    if (!listed.value.complete)
      log.warn(
        { provider: choice.provider, credentials: choice.credentials },
        'pix poll read the first pages of a window with more Pix than one run reads; the rest wait for the next run',
      );
    paid += (await confirmNotifiedPix(deps, listed.value.pix, new Set([record]))).paid;
  }
  return paid;
}

/**
 * A PSP's notification (`{ pix: [...] }`), from a PSP authenticated as the Pix accounts `notifiers`
 * (rail records, `bcb-pix:acme`): each Pix it names that paid a live charge of one of those accounts is
 * confirmed at that charge's PSP (GET /cob/{txid}) before the charge is paid, and each refund of it still
 * processing here is looked up again. A txid that is not ours, a charge of another account (or of the
 * sandbox), or a charge already moved changes nothing, so a repeated notification costs look-ups and
 * one PSP cannot speak for another's charges.
 */
export async function confirmNotifiedPix(
  deps: ChargesDeps,
  received: readonly ReceivedPix[],
  notifiers: ReadonlySet<string>,
): Promise<{ paid: number; refundsSettled: number }> {
  let paid = 0;
  let refundsSettled = 0;
  for (const pix of received) {
    if (pix.txid === null) continue;
    const txid = pix.txid;
    const charge = await deps.db.read((q) => findLivePixByTxid(q, txid));
    if (charge === undefined) continue;
    // A charge made before rails were recorded is its tenant's Pix account now.
    const rail =
      charge.acquirer_rail ??
      (await deps.acquirers.railFor({ tenantId: charge.tenant_id, livemode: true }, 'pix'));
    if (!notifiers.has(rail)) continue;
    if (charge.status === 'pending') {
      const acquirer = await acquirerFor(deps, charge);
      const confirmed = await acquirer.getPixCharge(charge.id);
      if (
        confirmed.ok &&
        confirmed.value.status === 'paid' &&
        (await confirmPaid(deps, charge, confirmed.value.paidAt))
      )
        paid++;
    }
    if (pix.refunds.some((r) => r.status !== 'processing')) {
      const processing = await deps.db.read((q) =>
        q('refunds').where({ charge_id: charge.id, status: 'processing' }).select<RefundRow[]>('*'),
      );
      for (const refund of processing) if (await reconcileRefund(deps, refund)) refundsSettled++;
    }
  }
  return { paid, refundsSettled };
}

/** Job boleto-exchange: the CNAB 240 file exchange of every bank account live tenants use. */
export async function exchangeBoletoFiles(deps: ChargesDeps, log: Log): Promise<number> {
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
    if (choice !== null && !accounts.has(record))
      accounts.set(record, { tenants: new Set<string>(), choice });
  }
  let paid = 0;
  for (const [key, { tenants, choice }] of accounts) {
    const rail = usable(deps.acquirers.boletoRail(choice), choice, 'boleto exchange', log);
    if (rail === null) continue;
    const onReturn = async (event: BoletoReturnEvent): Promise<void> => {
      if (event.return.outcome !== 'paid' || event.reference === null || event.boleto === null)
        return;
      const reference = event.reference;
      const charge = await deps.db.read((q) => findChargeById(q, reference));
      // A slip of ours that is not a live boleto charge registered on this account (or, made before rails
      // were recorded, of a tenant on it) is not this job's to pay.
      if (
        charge === undefined ||
        !charge.livemode ||
        charge.payment_method !== 'boleto' ||
        charge.status !== 'pending'
      )
        return;
      if (
        charge.acquirer_rail === null
          ? !tenants.has(charge.tenant_id)
          : charge.acquirer_rail !== key
      )
        return;
      if (await confirmPaid(deps, charge, event.boleto.paidAt)) paid++;
    };
    try {
      await rail.exchange.adapter.exchangeFiles({
        outbox: rail.exchange.outbox,
        inbox: rail.exchange.inbox,
        onReturn,
      });
    } catch (error) {
      // The bank's folder cannot be reached or refused us (an SFTP server down, a key not accepted, a host
      // key that is not the configured one): this account waits for the next run, the others go on. What
      // was done before the failure is committed and is not done twice.
      if (!(error instanceof DropFolderUnavailableError)) throw error;
      log.warn(
        { provider: choice.provider, credentials: choice.credentials },
        `boleto exchange stopped: ${error.message}`,
      );
    }
  }
  return paid;
}
