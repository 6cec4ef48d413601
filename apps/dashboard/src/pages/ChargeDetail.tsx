import { useState, type FormEvent } from 'react';
import type { Gateway } from '@pgw/sdk';
import { brl, calendarDate, centsFromReais, dateTime } from '../format';
import { TextField } from '../form';
import { useAction, useLoad } from '../load';
import { ResourceTable } from '../table';
import { Confirm, ErrorBox, Notice, Section, useLocale, useT } from '../ui';
import { receivableSums } from './receivable-columns';

// The ledger movements of one charge are found by reading the seller's balance history, which the API
// does not filter by charge: bounded, newest first, enough for a charge of recent months.
const SCAN_ITEMS_MAX = 500;
// A charge's refunds, events and receivables come from lists of that charge alone (GET /charges/{id}/refunds
// and /events, GET /receivables?charge_id=); a charge has at most 24 installments per recipient.
const OWN_ITEMS_MAX = 200;

/** An action waiting for its confirmation, with the Idempotency-Key its every attempt will carry. */
type Pending =
  { kind: 'refund'; amountCents: number | null; key: string } | { kind: 'capture'; key: string };

export function ChargeDetail({ gateway, id }: { gateway: Gateway; id: string }) {
  const t = useT();
  const locale = useLocale();
  const charge = useLoad(() => gateway.charges.retrieve(id), [gateway, id]);
  const receivables = useLoad(
    () => gateway.receivables.list({ charge_id: id, limit: 100 }).toArray(OWN_ITEMS_MAX),
    [gateway, id, charge.value],
  );
  const refunds = useLoad(
    () => gateway.charges.refunds(id, { limit: 100 }).toArray(OWN_ITEMS_MAX),
    [gateway, id, charge.value],
  );
  const events = useLoad(
    () => gateway.charges.events(id, { limit: 100 }).toArray(OWN_ITEMS_MAX),
    [gateway, id, charge.value],
  );
  const movements = useLoad(
    async () =>
      (await gateway.balance.history({ limit: 100 }).toArray(SCAN_ITEMS_MAX)).filter(
        (m) => m.charge_id === id,
      ),
    [gateway, id, charge.value],
  );
  const [amount, setAmount] = useState('');
  const [pending, setPending] = useState<Pending | null>(null);
  const { busy, error: actionError, setError: setActionError, act } = useAction();
  const [notice, setNotice] = useState<string | null>(null);

  const askRefund = (event: FormEvent) => {
    event.preventDefault();
    const cents = centsFromReais(amount);
    if (Number.isNaN(cents)) return setActionError(new Error(t.refundAmount));
    setActionError(null);
    // One key per confirmed intent: a retry of this very refund (by the SDK, or a second click) is replayed, never repeated.
    setPending({ kind: 'refund', amountCents: cents, key: `dash_${crypto.randomUUID()}` });
  };

  const run = async () => {
    if (pending === null) return;
    const done = await act(async () => {
      if (pending.kind === 'refund') {
        const refund = await gateway.charges.refund(
          id,
          pending.amountCents === null ? {} : { amount_cents: pending.amountCents },
          { idempotencyKey: pending.key },
        );
        setNotice(t.refundDone(brl(refund.amount_cents), refund.status));
        setAmount('');
      } else {
        await gateway.charges.capture(id, { idempotencyKey: pending.key });
        setNotice(t.captured);
      }
      return true;
    });
    setPending(null);
    if (done) charge.reload();
  };

  const c = charge.value;
  const question =
    pending === null
      ? ''
      : pending.kind === 'capture'
        ? t.captureConfirm
        : t.refundConfirm(
            pending.amountCents === null && c ? brl(c.amount_cents) : brl(pending.amountCents ?? 0),
          );
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
          <TextField
            id="refund-amount"
            label={t.refundAmount}
            inputMode="decimal"
            placeholder={brl(c.amount_cents)}
            value={amount}
            onChange={setAmount}
          />
          <button type="submit" disabled={pending !== null}>
            {t.refund}
          </button>
        </form>
      )}
      {c && c.status === 'authorized' && (
        <button
          type="button"
          onClick={() => setPending({ kind: 'capture', key: `dash_${crypto.randomUUID()}` })}
          disabled={pending !== null}
        >
          {t.capture}
        </button>
      )}
      {pending !== null && (
        <Confirm
          question={question}
          busy={busy}
          onConfirm={() => void run()}
          onCancel={() => setPending(null)}
        />
      )}
      <Notice text={notice} />
      <ErrorBox error={actionError} />
      <Section title={t.refunds}>
        <ResourceTable
          list={refunds}
          empty={t.noRefunds}
          label={t.refunds}
          testId="refunds"
          columns={[
            { header: t.id, cell: (r) => <code>{r.id}</code> },
            { header: t.created, cell: (r) => dateTime(r.created_at, locale) },
            { header: t.status, cell: (r) => r.status },
            { header: t.reason, cell: (r) => r.reason ?? '' },
            { header: t.amount, num: true, cell: (r) => brl(r.amount_cents) },
          ]}
        />
      </Section>
      <Section title={t.receivables}>
        <ResourceTable
          list={receivables}
          empty={t.noReceivables}
          label={t.receivables}
          testId="charge-receivables"
          rowTestId={(r) => `receivable-${r.id}`}
          columns={[
            { header: t.installments, cell: (r) => `${r.installment}/${r.installments}` },
            { header: t.dueDate, cell: (r) => calendarDate(r.due_date, locale) },
            { header: t.status, cell: (r) => r.status },
            ...receivableSums(t),
          ]}
        />
      </Section>
      <Section title={t.chargeEvents}>
        <ErrorBox error={events.error} />
        {events.value && events.value.length === 0 && <p>{t.none}</p>}
        <ul className="timeline" data-testid="charge-events">
          {(events.value ?? []).map((e) => (
            <li key={e.id}>
              <time dateTime={e.created_at}>{dateTime(e.created_at, locale)}</time> ·{' '}
              <strong>{e.type}</strong> · {brl(e.amount_cents)} ·{' '}
              {t.chargeStatusAfter(e.charge_status)} <code className="event-id">{e.id}</code>
            </li>
          ))}
        </ul>
      </Section>
      <Section title={t.events}>
        <ErrorBox error={movements.error} />
        <ul data-testid="movements">
          {(movements.value ?? []).map((m) => (
            <li key={m.id}>
              {dateTime(m.created_at, locale)} · {m.type} ·{' '}
              {m.direction === 'credit' ? t.credit : t.debit} {brl(m.amount_cents)}
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}
