import type { Receivable } from '@pgw/sdk';
import { brl } from '../format';
import type { Messages } from '../i18n';
import type { Column } from '../table';

type Sums = Pick<Receivable, 'gross_amount_cents' | 'fee_amount_cents' | 'net_amount_cents'>;

/** A receivable's gross, fee and net, the last columns of every table of receivables. */
export const receivableSums = <R extends Sums>(t: Messages): Column<R>[] => [
  { header: t.gross, num: true, cell: (r) => brl(r.gross_amount_cents) },
  { header: t.fee, num: true, cell: (r) => brl(r.fee_amount_cents) },
  { header: t.net, num: true, cell: (r) => brl(r.net_amount_cents) },
];
