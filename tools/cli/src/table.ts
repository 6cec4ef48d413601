// `--format table`: a list envelope as rows of its items' main columns, any other object as field/value
// lines of its scalar fields. Meant for eyes; scripts read the JSON.

// The columns worth a glance, in this order, where an item has them.
const COLUMNS = [
  'id',
  'status',
  'payment_method',
  'amount_cents',
  'gross_amount_cents',
  'net_amount_cents',
  'installment',
  'due_date',
  'charge_id',
  'type',
  'direction',
  'created_at',
] as const;

const cell = (value: unknown): string =>
  value === null || value === undefined
    ? ''
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

function grid(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return (
    rows
      .map((row) =>
        row
          .map((value, column) => value.padEnd(widths[column]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

export function renderTable(value: unknown): string {
  if (typeof value !== 'object' || value === null) return `${cell(value)}\n`;
  const record = value as Record<string, unknown>;
  if (record['object'] === 'list' && Array.isArray(record['data'])) {
    const items = record['data'] as Array<Record<string, unknown>>;
    const columns = COLUMNS.filter((column) => items.some((item) => item[column] !== undefined));
    const footer = `page ${cell(record['page'])} of ${cell(record['total_pages'])}, ${cell(record['total'])} in all\n`;
    if (items.length === 0 || columns.length === 0) return footer;
    return (
      grid([[...columns], ...items.map((item) => columns.map((column) => cell(item[column])))]) +
      footer
    );
  }
  const scalars = Object.entries(record).filter(([, v]) => v === null || typeof v !== 'object');
  return grid(scalars.map(([k, v]) => [k, cell(v)]));
}
