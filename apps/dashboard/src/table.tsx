import type { HTMLAttributes, ReactNode, TdHTMLAttributes } from 'react';
import type { ListPage } from './load';
import { ErrorBox, useT } from './ui';

/** A column of a `Table`: its header, and what each row shows in it. */
export interface Column<T> {
  header: ReactNode;
  /** Figures, aligned right. */
  num?: boolean;
  cell: (row: T) => ReactNode;
  /** More attributes of the row's cell (a `className` is added to `num`). */
  cellProps?: (row: T) => TdHTMLAttributes<HTMLTableCellElement>;
}

function cellAttributes<T>(column: Column<T>, row: T): TdHTMLAttributes<HTMLTableCellElement> {
  const props = column.cellProps?.(row) ?? {};
  const names = [column.num ? 'num' : '', props.className ?? ''].filter((n) => n !== '');
  return { ...props, className: names.length === 0 ? undefined : names.join(' ') };
}

/**
 * A column of one button a row, on the rows `when` keeps (every row without it): the button says
 * `label` and is named for its row (`label` and the row's `name`), the header is for screen readers.
 */
export function buttonColumn<T>({
  label,
  name,
  onClick,
  disabled,
  when,
}: {
  label: string;
  name: (row: T) => string;
  onClick: (row: T) => void;
  disabled?: boolean;
  when?: (row: T) => boolean;
}): Column<T> {
  return {
    header: <span className="sr-only">{label}</span>,
    cell: (row) =>
      (when?.(row) ?? true) && (
        <button
          type="button"
          onClick={() => onClick(row)}
          disabled={disabled}
          aria-label={`${label} ${name(row)}`}
        >
          {label}
        </button>
      ),
  };
}

/**
 * A column of each row's status, styled by it (`status <kind>-<status>`) and found by tests as
 * `<kind>-<id>`.
 */
export function statusColumn<T extends { id: string }>(
  header: string,
  kind: string,
  status: (row: T) => string,
): Column<T> {
  return {
    header,
    cell: (row) => (
      <span className={`status ${kind}-${status(row)}`} data-testid={`${kind}-${row.id}`}>
        {status(row)}
      </span>
    ),
  };
}

export interface TableProps<T> {
  columns: readonly Column<T>[];
  rowKey: (row: T) => string | number;
  rowTestId?: (row: T) => string;
  /** Read by screen readers only. */
  caption?: string;
  /** Names the box and lets it take focus, so that a keyboard can scroll it on a phone. */
  label?: string;
  testId?: string;
}

/** A table in a box that scrolls sideways on a narrow screen. */
export function Table<T>({
  rows,
  columns,
  rowKey,
  rowTestId,
  caption,
  label,
  testId,
}: TableProps<T> & { rows: readonly T[] }) {
  const region: HTMLAttributes<HTMLDivElement> =
    label === undefined ? {} : { tabIndex: 0, role: 'region', 'aria-label': label };
  return (
    <div className="table-wrap" {...region}>
      <table data-testid={testId}>
        {caption !== undefined && <caption className="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th key={i} scope="col" className={column.num ? 'num' : undefined}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} data-testid={rowTestId?.(row)}>
              {columns.map((column, i) => (
                <td key={i} {...cellAttributes(column, row)}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The rows of an API list, each keyed by its resource's id. */
type ResourceTableProps<T> = Omit<TableProps<T>, 'rowKey'>;

const byId = (row: { id: string }) => row.id;

/** A list read whole (`useLoad`): its error, `empty` when it has nothing, else its table. */
export function ResourceTable<T extends { id: string }>({
  list,
  empty,
  ...table
}: ResourceTableProps<T> & {
  list: { value: readonly T[] | undefined; error: unknown };
  empty: string;
}) {
  return (
    <>
      <ErrorBox error={list.error} />
      {list.value && list.value.length === 0 && <p>{empty}</p>}
      {list.value && list.value.length > 0 && <Table rows={list.value} rowKey={byId} {...table} />}
    </>
  );
}

/**
 * One page of a list (`usePagedLoad`, or a page read and moved otherwise): its rows (none until it is
 * read), `empty` when the page has none, and the pager.
 */
export function PagedTable<T extends { id: string }>({
  list,
  empty,
  ...table
}: ResourceTableProps<T> & {
  list: { value: ListPage<T> | null | undefined; setPage: (page: number) => void };
  empty?: string;
}) {
  const page = list.value;
  return (
    <>
      <Table rows={page?.data ?? []} rowKey={byId} {...table} />
      {empty !== undefined && page?.data.length === 0 && <p>{empty}</p>}
      {page && <Pager page={page.page} pages={page.total_pages} onPage={list.setPage} />}
    </>
  );
}

export function Pager({
  page,
  pages,
  onPage,
}: {
  page: number;
  pages: number;
  onPage: (page: number) => void;
}) {
  const t = useT();
  return (
    <nav className="pager" aria-label={t.pageOf(page, pages)}>
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        {t.previous}
      </button>
      <span aria-live="polite">{t.pageOf(page, pages)}</span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= pages}>
        {t.next}
      </button>
    </nav>
  );
}
