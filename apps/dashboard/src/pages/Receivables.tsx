import { useRef, useState, type KeyboardEvent } from 'react';
import type { Gateway } from '@pgw/sdk';
import { addMonths, byDueDate, initialMonth, monthWeeks } from '../calendar';
import { addDays, brl, calendarDate, dateTime, saoPauloDay } from '../format';
import { useLoad } from '../load';
import { Table } from '../table';
import { ErrorBox, Section, useLocale, useT } from '../ui';
import { receivableSums } from './receivable-columns';

// What a seller has to receive, read whole (bounded) so that each day's sums are the day's, not a page's.
const RECEIVABLES_MAX = 2_000;

const MONTH_FORMAT = (locale: string) =>
  new Intl.DateTimeFormat(locale, { timeZone: 'UTC', month: 'long', year: 'numeric' });
const WEEKDAY_FORMAT = (locale: string, width: 'short' | 'long') =>
  new Intl.DateTimeFormat(locale, { timeZone: 'UTC', weekday: width });
// 2023-01-01 was a Sunday: the week's names in the interface's language, Sunday first.
const WEEK = Array.from({ length: 7 }, (_, i) => addDays('2023-01-01', i));

export function Receivables({ gateway }: { gateway: Gateway }) {
  const t = useT();
  const locale = useLocale();
  const [status, setStatus] = useState<'pending' | 'available' | 'paid'>('pending');
  const [month, setMonth] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const receivables = useLoad(
    () => gateway.receivables.list({ status, limit: 100 }).toArray(RECEIVABLES_MAX),
    [gateway, status],
  );
  const settlements = useLoad(
    () => Promise.resolve(gateway.settlements.list({ status: 'paid', limit: 10 })),
    [gateway],
  );
  const days = byDueDate(receivables.value ?? []);
  const shown = month ?? initialMonth(days, saoPauloDay(new Date()));
  const byDay = new Map(days.map((d) => [d.day, d]));
  const openDay = open === null ? undefined : byDay.get(open);
  const monthTitle = MONTH_FORMAT(locale).format(new Date(`${shown}-01T00:00:00Z`));
  const grid = useRef<HTMLTableElement>(null);

  // Left and right go to the day with receivables before or after, up and down to the week's other side
  // (the nearest busy day); Tab walks the same buttons in order. Enter or Space opens the day.
  const onKeyDown = (event: KeyboardEvent<HTMLTableElement>) => {
    const steps: Record<string, number> = {
      ArrowLeft: -1,
      ArrowRight: 1,
      ArrowUp: -7,
      ArrowDown: 7,
    };
    const step = steps[event.key];
    const buttons = [
      ...(grid.current?.querySelectorAll<HTMLButtonElement>('button[data-day]') ?? []),
    ];
    const from = buttons.findIndex((b) => b === document.activeElement);
    if (step === undefined || from < 0) return;
    event.preventDefault();
    const target = addDays(buttons[from]!.dataset.day!, step);
    const next =
      step > 0
        ? buttons.find((b) => b.dataset.day! >= target)
        : [...buttons].reverse().find((b) => b.dataset.day! <= target);
    next?.focus();
  };

  return (
    <>
      <h1>{t.receivables}</h1>
      <label className="filters">
        {t.status}
        <select
          value={status}
          onChange={(e) => (
            setStatus(e.target.value as typeof status),
            setMonth(null),
            setOpen(null)
          )}
        >
          <option value="pending">pending</option>
          <option value="available">available</option>
          <option value="paid">paid</option>
        </select>
      </label>
      <ErrorBox error={receivables.error} />
      {receivables.value && days.length === 0 && <p>{t.noReceivables}</p>}
      <div className="month-nav">
        <button
          type="button"
          onClick={() => (setMonth(addMonths(shown, -1)), setOpen(null))}
          aria-label={t.previousMonth}
        >
          ←
        </button>
        <h2 aria-live="polite" data-testid="month-title">
          {monthTitle}
        </h2>
        <button
          type="button"
          onClick={() => (setMonth(addMonths(shown, 1)), setOpen(null))}
          aria-label={t.nextMonth}
        >
          →
        </button>
      </div>
      <p className="help">{t.calendarHelp}</p>
      <table
        className="month-grid"
        ref={grid}
        onKeyDown={onKeyDown}
        data-testid="month-grid"
        data-month={shown}
      >
        <caption className="sr-only">{monthTitle}</caption>
        <thead>
          <tr>
            {WEEK.map((day) => (
              <th scope="col" key={day}>
                <abbr title={WEEKDAY_FORMAT(locale, 'long').format(new Date(`${day}T00:00:00Z`))}>
                  {WEEKDAY_FORMAT(locale, 'short').format(new Date(`${day}T00:00:00Z`))}
                </abbr>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {monthWeeks(shown).map((week) => (
            <tr key={week.find((d) => d !== null)}>
              {week.map((day, i) => {
                const due = day === null ? undefined : byDay.get(day);
                if (day === null || due === undefined) {
                  return (
                    <td key={day ?? `blank-${i}`} className={day === null ? 'outside' : 'quiet'}>
                      {day !== null && <span className="day-number">{Number(day.slice(8))}</span>}
                    </td>
                  );
                }
                return (
                  <td key={day} className="busy">
                    <button
                      type="button"
                      data-day={day}
                      data-testid={`day-${day}`}
                      aria-pressed={open === day}
                      onClick={() => setOpen(open === day ? null : day)}
                    >
                      <span className="day-number" aria-hidden="true">
                        {Number(day.slice(8))}
                      </span>
                      <span className="day-date">{calendarDate(day, locale)}</span>
                      <span className="day-sum">
                        {t.gross} <span className="num">{brl(due.gross)}</span>
                      </span>
                      <span className="day-sum">
                        {t.fee} <span className="num">{brl(due.fee)}</span>
                      </span>
                      <span className="day-sum day-net">
                        {t.net} <span className="num">{brl(due.net)}</span>
                      </span>
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {receivables.value && days.length > 0 && !days.some((d) => d.day.startsWith(shown)) && (
        <p>{t.nothingDue}</p>
      )}
      {openDay && (
        <Section title={t.receivablesOfDay(calendarDate(openDay.day, locale))}>
          <p className="day-totals" data-testid="day-totals">
            {t.gross} {brl(openDay.gross)} · {t.fee} {brl(openDay.fee)} · {t.net}{' '}
            <strong>{brl(openDay.net)}</strong>
          </p>
          <Table
            rows={openDay.items}
            label={t.receivablesOfDay(calendarDate(openDay.day, locale))}
            testId="day-receivables"
            rowKey={(r) => r.id}
            columns={[
              {
                header: t.charges,
                cell: (r) => <a href={`#/charges/${r.charge_id}`}>{r.charge_id}</a>,
              },
              { header: t.installments, cell: (r) => `${r.installment}/${r.installments}` },
              { header: t.status, cell: (r) => r.status },
              ...receivableSums(t),
            ]}
          />
        </Section>
      )}
      <Section title={t.settlementsPaid}>
        <ErrorBox error={settlements.error} />
        {settlements.value?.data.length === 0 && <p>{t.none}</p>}
        <ul data-testid="settlements-paid">
          {(settlements.value?.data ?? []).map((s) => (
            <li key={s.id} data-testid={`settlement-${s.id}`}>
              {s.settlement_date ? calendarDate(s.settlement_date, locale) : ''} ·{' '}
              {brl(s.amount_cents)} · {s.receivable_count} ·{' '}
              {s.paid_at ? dateTime(s.paid_at, locale) : s.status}
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}
