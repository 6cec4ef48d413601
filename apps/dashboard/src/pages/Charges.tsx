import { useState, type FormEvent } from 'react';
import { CHARGE_STATUSES, PAYMENT_METHODS, type ChargeListParams, type Gateway } from '@pgw/sdk';
import { addDays, brl, dateTime, startOfSaoPauloDay } from '../format';
import { type FieldProps } from '../form';
import { usePagedLoad } from '../load';
import { PagedTable } from '../table';
import { ErrorBox, useLocale, useT } from '../ui';

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
    ...(filters.method
      ? { payment_method: filters.method as ChargeListParams['payment_method'] }
      : {}),
    ...(filters.from ? { created_from: startOfSaoPauloDay(filters.from) } : {}),
    ...(filters.to ? { created_to: startOfSaoPauloDay(addDays(filters.to, 1)) } : {}),
  };
}

/** A filter that is one of `values`, or any ("" stands for all). */
function AnyOf({ label, values, value, onChange }: FieldProps & { values: readonly string[] }) {
  const t = useT();
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{t.all}</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A São Paulo day that bounds the list ("" for no bound). */
function DateFilter({ label, value, onChange }: FieldProps) {
  return (
    <label>
      {label}
      <input type="date" value={value} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

export function Charges({ gateway }: { gateway: Gateway }) {
  const t = useT();
  const locale = useLocale();
  const [draft, setDraft] = useState<Filters>({ status: '', method: '', from: '', to: '' });
  const [filters, setFilters] = useState(draft);
  const list = usePagedLoad(
    (page) => Promise.resolve(gateway.charges.list(query(filters, page))),
    [gateway, filters],
  );
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters(draft);
    list.setPage(1);
  };
  return (
    <>
      <h1>{t.charges}</h1>
      <form className="filters" onSubmit={apply}>
        <AnyOf
          label={t.status}
          values={CHARGE_STATUSES}
          value={draft.status}
          onChange={(status) => setDraft({ ...draft, status })}
        />
        <AnyOf
          label={t.method}
          values={PAYMENT_METHODS}
          value={draft.method}
          onChange={(method) => setDraft({ ...draft, method })}
        />
        <DateFilter
          label={t.from}
          value={draft.from}
          onChange={(from) => setDraft({ ...draft, from })}
        />
        <DateFilter label={t.to} value={draft.to} onChange={(to) => setDraft({ ...draft, to })} />
        <button type="submit">{t.filter}</button>
      </form>
      <ErrorBox error={list.error} />
      {list.value && (
        <PagedTable
          list={list}
          empty={t.noCharges}
          caption={t.charges}
          columns={[
            { header: t.id, cell: (c) => <a href={`#/charges/${c.id}`}>{c.id}</a> },
            {
              header: t.status,
              cell: (c) => <span className={`status status-${c.status}`}>{c.status}</span>,
            },
            { header: t.method, cell: (c) => c.payment_method },
            { header: t.amount, num: true, cell: (c) => brl(c.amount_cents) },
            { header: t.created, cell: (c) => dateTime(c.created_at, locale) },
          ]}
        />
      )}
    </>
  );
}
