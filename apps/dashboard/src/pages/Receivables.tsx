import { useState } from 'react';
import type { Gateway, Receivable } from '@pgw/sdk';
import { brl, calendarDate, dateTime } from '../format';
import { ErrorBox, Section, useLoad, useLocale, useT } from '../ui';

// What a seller has to receive, read whole (bounded) so that each day's sums are the day's, not a page's.
const RECEIVABLES_MAX = 2_000;

type Item = Omit<Receivable, 'request_id'>;

interface Day {
  day: string;
  items: Item[];
  gross: number;
  fee: number;
  net: number;
}

/** The receivables by due date, soonest first, with each day's gross, fee and net. */
export function byDueDate(items: readonly Item[]): Day[] {
  const days = new Map<string, Day>();
  for (const item of items) {
    const day = days.get(item.due_date) ?? { day: item.due_date, items: [], gross: 0, fee: 0, net: 0 };
    day.items.push(item);
    day.gross += item.gross_amount_cents;
    day.fee += item.fee_amount_cents;
    day.net += item.net_amount_cents;
    days.set(item.due_date, day);
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

const MONTH_FORMAT = (locale: string) => new Intl.DateTimeFormat(locale, { timeZone: 'UTC', month: 'long', year: 'numeric' });

export function Receivables({ gateway }: { gateway: Gateway }) {
  const t = useT();
  const locale = useLocale();
  const [status, setStatus] = useState<'pending' | 'available' | 'paid'>('pending');
  const [open, setOpen] = useState<string | null>(null);
  const receivables = useLoad(() => gateway.receivables.list({ status, limit: 100 }).toArray(RECEIVABLES_MAX), [gateway, status]);
  const settlements = useLoad(() => Promise.resolve(gateway.settlements.list({ status: 'paid', limit: 10 })), [gateway]);
  const days = byDueDate(receivables.value ?? []);
  const months = new Map<string, Day[]>();
  for (const day of days) months.set(day.day.slice(0, 7), [...(months.get(day.day.slice(0, 7)) ?? []), day]);
  return (
    <>
      <h1>{t.receivables}</h1>
      <label className="filters">
        {t.status}
        <select value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
          <option value="pending">pending</option>
          <option value="available">available</option>
          <option value="paid">paid</option>
        </select>
      </label>
      <ErrorBox error={receivables.error} />
      {receivables.value && days.length === 0 && <p>{t.noReceivables}</p>}
      {[...months].map(([month, monthDays]) => (
        <Section key={month} title={MONTH_FORMAT(locale).format(new Date(`${month}-01T00:00:00Z`))}>
          <div className="table-wrap">
            <table className="calendar">
              <thead>
                <tr>
                  <th scope="col">{t.day}</th>
                  <th scope="col" className="num">
                    {t.count}
                  </th>
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
                {monthDays.map((d) => (
                  <DayRows key={d.day} day={d} expanded={open === d.day} onToggle={() => setOpen(open === d.day ? null : d.day)} />
                ))}
              </tbody>
            </table>
          </div>
        </Section>
      ))}
      <Section title={t.settlementsPaid}>
        <ErrorBox error={settlements.error} />
        <ul>
          {(settlements.value?.data ?? []).map((s) => (
            <li key={s.id}>
              {s.settlement_date ? calendarDate(s.settlement_date, locale) : ''} · {brl(s.amount_cents)} · {s.receivable_count} · {s.paid_at ? dateTime(s.paid_at, locale) : s.status}
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}

function DayRows({ day, expanded, onToggle }: { day: Day; expanded: boolean; onToggle: () => void }) {
  const locale = useLocale();
  return (
    <>
      <tr>
        <th scope="row">
          <button type="button" className="link" aria-expanded={expanded} onClick={onToggle}>
            {calendarDate(day.day, locale)}
          </button>
        </th>
        <td className="num">{day.items.length}</td>
        <td className="num">{brl(day.gross)}</td>
        <td className="num">{brl(day.fee)}</td>
        <td className="num">{brl(day.net)}</td>
      </tr>
      {expanded &&
        day.items.map((r) => (
          <tr key={r.id} className="detail">
            <td>
              <a href={`#/charges/${r.charge_id}`}>{r.charge_id}</a> {r.installment}/{r.installments}
            </td>
            <td>{r.status}</td>
            <td className="num">{brl(r.gross_amount_cents)}</td>
            <td className="num">{brl(r.fee_amount_cents)}</td>
            <td className="num">{brl(r.net_amount_cents)}</td>
          </tr>
        ))}
    </>
  );
}
