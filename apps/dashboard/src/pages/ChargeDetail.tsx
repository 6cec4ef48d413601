import { useState, type FormEvent } from 'react';
import type { Gateway, Refund } from '@pgw/sdk';
import { brl, calendarDate, dateTime } from '../format';
import { Confirm, ErrorBox, Section, useLoad, useLocale, useT } from '../ui';

// The receivables and ledger movements of one charge are found by reading the seller's lists, which
// the API does not filter by charge: bounded, newest first, enough for a charge of recent months.
const SCAN_ITEMS_MAX = 500;

/** An action waiting for its confirmation, with the Idempotency-Key its every attempt will carry. */
type Pending = { kind: 'refund'; amountCents: number | null; key: string } | { kind: 'capture'; key: string };

export function ChargeDetail({ gateway, id }: { gateway: Gateway; id: string }) {
  const t = useT();
  const locale = useLocale();
  const charge = useLoad(() => gateway.charges.retrieve(id), [gateway, id]);
  const receivables = useLoad(async () => (await gateway.receivables.list({ limit: 100 }).toArray(SCAN_ITEMS_MAX)).filter((r) => r.charge_id === id), [gateway, id, charge.value]);
  const movements = useLoad(async () => (await gateway.balance.history({ limit: 100 }).toArray(SCAN_ITEMS_MAX)).filter((m) => m.charge_id === id), [gateway, id, charge.value]);
  const [amount, setAmount] = useState('');
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [refunds, setRefunds] = useState<Refund[]>([]);

  const askRefund = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = amount.trim();
    const cents = trimmed === '' ? null : Math.round(Number(trimmed.replace(/\./g, '').replace(',', '.')) * 100);
    if (cents !== null && !(Number.isInteger(cents) && cents > 0)) return setActionError(new Error(t.refundAmount));
    setActionError(null);
    // One key per confirmed intent: a retry of this very refund (by the SDK, or a second click) is replayed, never repeated.
    setPending({ kind: 'refund', amountCents: cents, key: `dash_${crypto.randomUUID()}` });
  };

  const run = async () => {
    if (pending === null) return;
    setBusy(true);
    try {
      if (pending.kind === 'refund') {
        const refund = await gateway.charges.refund(id, pending.amountCents === null ? {} : { amount_cents: pending.amountCents }, { idempotencyKey: pending.key });
        setRefunds((list) => [refund, ...list]);
        setNotice(t.refundDone(brl(refund.amount_cents), refund.status));
        setAmount('');
      } else {
        await gateway.charges.capture(id, { idempotencyKey: pending.key });
        setNotice(t.captured);
      }
      setActionError(null);
      charge.reload();
    } catch (error) {
      setActionError(error);
    } finally {
      setBusy(false);
      setPending(null);
    }
  };

  const c = charge.value;
  const question = pending === null ? '' : pending.kind === 'capture' ? t.captureConfirm : t.refundConfirm(pending.amountCents === null && c ? brl(c.amount_cents) : brl(pending.amountCents ?? 0));
  return (
    <>
      <p>
        <a href="#/charges">← {t.back}</a>
      </p>
      <h1>{id}</h1>
      <ErrorBox error={charge.error} />
      {c && (
        <dl className="facts">
          <dt>{t.status}</dt>
          <dd>
            <span className={`status status-${c.status}`} data-testid="charge-status">
              {c.status}
            </span>
          </dd>
          <dt>{t.amount}</dt>
          <dd>{brl(c.amount_cents)}</dd>
          <dt>{t.method}</dt>
          <dd>{c.payment_method}</dd>
          {'installments' in c && c.installments !== null && c.installments !== undefined && (
            <>
              <dt>{t.installments}</dt>
              <dd>{c.installments}</dd>
            </>
          )}
          {'buyer' in c && c.buyer && (
            <>
              <dt>{t.buyer}</dt>
              <dd>{c.buyer.name}</dd>
            </>
          )}
          {'paid_at' in c && c.paid_at && (
            <>
              <dt>{t.paidAt}</dt>
              <dd>{dateTime(c.paid_at, locale)}</dd>
            </>
          )}
        </dl>
      )}
      {c && (c.status === 'paid' || c.status === 'partially_refunded') && (
        <form className="inline-form" onSubmit={askRefund}>
          <label htmlFor="refund-amount">{t.refundAmount}</label>
          <input id="refund-amount" inputMode="decimal" placeholder={brl(c.amount_cents)} value={amount} onChange={(e) => setAmount(e.target.value)} />
          <button type="submit" disabled={pending !== null}>
            {t.refund}
          </button>
        </form>
      )}
      {c && c.status === 'authorized' && (
        <button type="button" onClick={() => setPending({ kind: 'capture', key: `dash_${crypto.randomUUID()}` })} disabled={pending !== null}>
          {t.capture}
        </button>
      )}
      {pending !== null && <Confirm question={question} busy={busy} onConfirm={() => void run()} onCancel={() => setPending(null)} />}
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      <ErrorBox error={actionError} />
      {refunds.length > 0 && (
        <Section title={t.refunded}>
          <ul>
            {refunds.map((r) => (
              <li key={r.id}>
                {r.id} · {brl(r.amount_cents)} · {r.status}
              </li>
            ))}
          </ul>
        </Section>
      )}
      <Section title={t.receivables}>
        <ErrorBox error={receivables.error} />
        {receivables.value && receivables.value.length === 0 && <p>{t.noReceivables}</p>}
        {receivables.value && receivables.value.length > 0 && (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.installments}</th>
                  <th scope="col">{t.dueDate}</th>
                  <th scope="col">{t.status}</th>
                  <th scope="col" className="num">
                    {t.gross}
                  </th>
                  <th scope="col" className="num">
                    {t.fee}
                  </th>
                  <th scope="col" className="num">
                    {t.net}
                  </th>
                </tr>
              </thead>
              <tbody>
                {receivables.value.map((r) => (
                  <tr key={r.id}>
                    <td>
                      {r.installment}/{r.installments}
                    </td>
                    <td>{calendarDate(r.due_date, locale)}</td>
                    <td>{r.status}</td>
                    <td className="num">{brl(r.gross_amount_cents)}</td>
                    <td className="num">{brl(r.fee_amount_cents)}</td>
                    <td className="num">{brl(r.net_amount_cents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      <Section title={t.events}>
        <ErrorBox error={movements.error} />
        <ul data-testid="movements">
          {(movements.value ?? []).map((m) => (
            <li key={m.id}>
              {dateTime(m.created_at, locale)} · {m.type} · {m.direction === 'credit' ? t.credit : t.debit} {brl(m.amount_cents)}
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}
