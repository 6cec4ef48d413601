import { useState, type FormEvent } from 'react';
import type { ChargeListParams, Gateway } from '@pgw/sdk';
import { addDays, brl, dateTime, startOfSaoPauloDay } from '../format';
import { ErrorBox, Pager, useLoad, useLocale, useT } from '../ui';

const STATUSES = ['pending', 'authorized', 'paid', 'refused', 'canceled', 'refunded', 'partially_refunded', 'chargeback', 'failed'] as const;
const METHODS = ['credit_card', 'debit_card', 'pix', 'boleto'] as const;

interface Filters {
  status: string;
  method: string;
  from: string;
  to: string;
}

/** The filters as the API takes them: São Paulo days turned into the instants that bound them. */
function query(filters: Filters, page: number): ChargeListParams {
  return {
    page,
    limit: 20,
    ...(filters.status ? { status: filters.status as ChargeListParams['status'] } : {}),
    ...(filters.method ? { payment_method: filters.method as ChargeListParams['payment_method'] } : {}),
    ...(filters.from ? { created_from: startOfSaoPauloDay(filters.from) } : {}),
    ...(filters.to ? { created_to: startOfSaoPauloDay(addDays(filters.to, 1)) } : {}),
  };
}

export function Charges({ gateway }: { gateway: Gateway }) {
  const t = useT();
  const locale = useLocale();
  const [draft, setDraft] = useState<Filters>({ status: '', method: '', from: '', to: '' });
  const [filters, setFilters] = useState(draft);
  const [page, setPage] = useState(1);
  const list = useLoad(() => Promise.resolve(gateway.charges.list(query(filters, page))), [gateway, filters, page]);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters(draft);
    setPage(1);
  };
  return (
    <>
      <h1>{t.charges}</h1>
      <form className="filters" onSubmit={apply}>
        <label>
          {t.status}
          <select value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
            <option value="">{t.all}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t.method}
          <select value={draft.method} onChange={(e) => setDraft({ ...draft, method: e.target.value })}>
            <option value="">{t.all}</option>
            {METHODS.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t.from}
          <input type="date" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
        </label>
        <label>
          {t.to}
          <input type="date" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
        </label>
        <button type="submit">{t.filter}</button>
      </form>
      <ErrorBox error={list.error} />
      {list.value && (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">{t.charges}</caption>
              <thead>
                <tr>
                  <th scope="col">{t.id}</th>
                  <th scope="col">{t.status}</th>
                  <th scope="col">{t.method}</th>
                  <th scope="col" className="num">
                    {t.amount}
                  </th>
                  <th scope="col">{t.created}</th>
                </tr>
              </thead>
              <tbody>
                {list.value.data.map((c) => (
                  <tr key={c.id}>
                    <td>
                      <a href={`#/charges/${c.id}`}>{c.id}</a>
                    </td>
                    <td>
                      <span className={`status status-${c.status}`}>{c.status}</span>
                    </td>
                    <td>{c.payment_method}</td>
                    <td className="num">{brl(c.amount_cents)}</td>
                    <td>{dateTime(c.created_at, locale)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.value.data.length === 0 && <p>{t.noCharges}</p>}
          <Pager page={list.value.page} pages={list.value.total_pages} onPage={setPage} />
        </>
      )}
    </>
  );
}
