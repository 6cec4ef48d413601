import { useState } from 'react';
import type { Gateway } from '@pgw/sdk';
import { brl, dateTime, toCsv } from '../format';
import { usePagedLoad } from '../load';
import { PagedTable } from '../table';
import { ErrorBox, useLocale, useT } from '../ui';

// The export reads every page; a seller's year of entries fits, and the file says when it was cut short.
const EXPORT_ROWS_MAX = 50_000;

export function BalanceHistory({ gateway }: { gateway: Gateway }) {
  const t = useT();
  const locale = useLocale();
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>(null);
  const list = usePagedLoad(
    (page) => Promise.resolve(gateway.balance.history({ page, limit: 25 })),
    [gateway],
  );

  const exportCsv = async () => {
    setExporting(true);
    try {
      const rows = await gateway.balance.history({ limit: 100 }).toArray(EXPORT_ROWS_MAX);
      // Amounts in cents, signed by direction, and instants in UTC: a file that a program reads back exactly.
      const csv = toCsv(
        [
          'id',
          'created_at',
          'type',
          'direction',
          'amount_cents',
          'signed_amount_cents',
          'currency',
          'charge_id',
        ],
        rows.map((r) => [
          r.id,
          r.created_at,
          r.type,
          r.direction,
          r.amount_cents,
          r.direction === 'credit' ? r.amount_cents : -r.amount_cents,
          r.currency,
          r.charge_id ?? null,
        ]),
      );
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
      link.download = 'balance-history.csv';
      link.click();
      URL.revokeObjectURL(link.href);
      setExportError(null);
    } catch (error) {
      setExportError(error);
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <h1>{t.balanceHistory}</h1>
      <button type="button" onClick={() => void exportCsv()} disabled={exporting}>
        {t.exportCsv}
      </button>
      <ErrorBox error={list.error ?? exportError} />
      {list.value && (
        <PagedTable
          list={list}
          rowTestId={(m) => `entry-${m.id}`}
          columns={[
            { header: t.created, cell: (m) => dateTime(m.created_at, locale) },
            { header: t.type, cell: (m) => m.type },
            { header: t.direction, cell: (m) => (m.direction === 'credit' ? t.credit : t.debit) },
            {
              header: t.amount,
              num: true,
              cellProps: (m) => ({ className: m.direction }),
              cell: (m) => (m.direction === 'debit' ? '−' : '') + brl(m.amount_cents),
            },
            {
              header: t.charges,
              cell: (m) =>
                m.charge_id ? <a href={`#/charges/${m.charge_id}`}>{m.charge_id}</a> : '',
            },
          ]}
        />
      )}
    </>
  );
}
