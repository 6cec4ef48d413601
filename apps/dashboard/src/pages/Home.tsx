import type { Charge, Gateway } from '@pgw/sdk';
import {
  addDays,
  brl,
  calendarDate,
  dailyTotals,
  saoPauloDay,
  startOfSaoPauloDay,
} from '../format';
import { useLoad } from '../load';
import { ErrorBox, Section, useLocale, useT } from '../ui';

// Charges read for the chart: a month of a busy seller's sales fits; beyond it the chart says it is partial.
const CHART_CHARGES_MAX = 2_000;
const CHART_DAYS = 30;

type Listed = Omit<Charge, 'request_id'>;

export function Home({ gateway }: { gateway: Gateway }) {
  const t = useT();
  const locale = useLocale();
  const today = saoPauloDay(new Date());
  const balance = useLoad(() => gateway.balance.retrieve(), [gateway]);
  const charges = useLoad(
    () =>
      gateway.charges
        .list({ created_from: startOfSaoPauloDay(addDays(today, 1 - CHART_DAYS)), limit: 100 })
        .toArray(CHART_CHARGES_MAX) as Promise<Listed[]>,
    [gateway, today],
  );
  // A sale is a charge whose money was taken (paid or captured), whatever happened to it after.
  const sales = (charges.value ?? []).filter((c) => c.captured);
  const series = dailyTotals(
    sales,
    today,
    CHART_DAYS,
    (c) => saoPauloDay(c.created_at),
    (c) => c.amount_cents,
  );
  const todays = sales.filter((c) => saoPauloDay(c.created_at) === today);
  return (
    <>
      <h1>{t.home}</h1>
      <ErrorBox error={balance.error ?? charges.error} />
      <div className="tiles">
        <Tile
          label={t.available}
          value={balance.value === undefined ? '…' : brl(balance.value.available_cents)}
          testId="available"
        />
        <Tile
          label={t.pending}
          value={balance.value === undefined ? '…' : brl(balance.value.pending_cents)}
          testId="pending"
        />
        <Tile
          label={t.todaySales}
          value={
            charges.value === undefined
              ? '…'
              : `${brl(todays.reduce((sum, c) => sum + c.amount_cents, 0))} · ${todays.length}`
          }
          testId="today"
        />
      </div>
      <Section title={t.volume30}>
        <VolumeChart
          series={series}
          label={(day) => calendarDate(day, locale)}
          title={t.volume30}
        />
      </Section>
    </>
  );
}

function Tile({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="tile">
      <div className="tile-label">{label}</div>
      <div className="tile-value" data-testid={testId}>
        {value}
      </div>
    </div>
  );
}

/** Bars of the daily totals: a small SVG, each bar titled with its day and amount, summarised for screen readers. */
function VolumeChart({
  series,
  label,
  title,
}: {
  series: Array<{ day: string; cents: number }>;
  label: (day: string) => string;
  title: string;
}) {
  const width = 600;
  const height = 160;
  const max = Math.max(1, ...series.map((p) => p.cents));
  const barWidth = width / series.length;
  const total = series.reduce((sum, p) => sum + p.cents, 0);
  const first = series[0];
  const last = series[series.length - 1];
  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${width} ${height + 20}`}
        role="img"
        aria-label={`${title}: ${brl(total)}`}
      >
        {series.map((point, i) => {
          const barHeight = Math.round((point.cents / max) * height);
          return (
            <rect
              key={point.day}
              x={i * barWidth + 1}
              y={height - barHeight}
              width={barWidth - 2}
              height={barHeight}
              className="bar"
            >
              <title>{`${label(point.day)}: ${brl(point.cents)}`}</title>
            </rect>
          );
        })}
        <line x1={0} y1={height} x2={width} y2={height} className="axis" />
        {first && (
          <text x={0} y={height + 16} className="tick">
            {label(first.day)}
          </text>
        )}
        {last && (
          <text x={width} y={height + 16} textAnchor="end" className="tick">
            {label(last.day)}
          </text>
        )}
      </svg>
      <figcaption>{brl(total)}</figcaption>
    </figure>
  );
}
