import { useState } from 'react';
import type { Anticipation as AnticipationResource, Gateway } from '@pgw/sdk';
import { brl, calendarDate, dateTime, saoPauloDay } from '../format';
import { Choice } from '../form';
import { useAction, useLoad } from '../load';
import { ResourceTable } from '../table';
import { Confirm, ErrorBox, Notice, Section, useLocale, useT } from '../ui';

// The simulation takes at most 100 receivable ids (api-v1); "all eligible" sends none and takes every one.
const PICK_MAX = 100;
const ELIGIBLE_MAX = 1_000;

export function Anticipation({ gateway }: { gateway: Gateway }) {
  const t = useT();
  const locale = useLocale();
  const [round, setRound] = useState(0);
  const [mode, setMode] = useState<'all' | 'pick'>('all');
  const [picked, setPicked] = useState<readonly string[]>([]);
  const [confirming, setConfirming] = useState<string | null>(null);
  const { busy, error: actionError, act } = useAction();
  const [done, setDone] = useState<AnticipationResource | null>(null);
  const today = saoPauloDay(new Date());
  // Eligible (contract §4): pending, not anticipated, due after today.
  const eligible = useLoad(
    async () =>
      (
        await gateway.receivables.list({ status: 'pending', limit: 100 }).toArray(ELIGIBLE_MAX)
      ).filter((r) => r.anticipation_id === null && r.due_date > today),
    [gateway, round],
  );
  const ids = mode === 'all' ? null : picked;
  const simulation = useLoad(
    () =>
      ids !== null && ids.length === 0
        ? Promise.resolve(null)
        : gateway.anticipations.simulate(ids === null ? {} : { receivable_ids: [...ids] }),
    [gateway, mode, picked.join(','), round],
  );
  const history = useLoad(
    () => Promise.resolve(gateway.anticipations.list({ limit: 20 })),
    [gateway, round],
  );

  const toggle = (id: string) =>
    setPicked((list) =>
      list.includes(id)
        ? list.filter((x) => x !== id)
        : list.length < PICK_MAX
          ? [...list, id]
          : list,
    );

  const execute = async () => {
    if (confirming === null) return;
    const anticipation = await act(() =>
      gateway.anticipations.create(ids === null ? {} : { receivable_ids: [...ids] }, {
        idempotencyKey: confirming,
      }),
    );
    setConfirming(null);
    if (anticipation) {
      setDone(anticipation);
      setPicked([]);
      setRound((n) => n + 1);
    }
  };

  const s = simulation.value;
  return (
    <>
      <h1>{t.anticipation}</h1>
      <Choice
        className="choice"
        legend={t.anticipation}
        name="anticipation-mode"
        options={[
          { value: 'all', label: t.allEligible },
          { value: 'pick', label: t.pickReceivables },
        ]}
        value={mode}
        onChange={setMode}
      />
      <ResourceTable
        list={eligible}
        empty={t.nothingEligible}
        columns={[
          {
            header: t.select,
            cell: (r) => (
              <input
                type="checkbox"
                aria-label={`${t.select} ${r.id}`}
                disabled={mode === 'all'}
                checked={mode === 'all' || picked.includes(r.id)}
                onChange={() => toggle(r.id)}
              />
            ),
          },
          { header: t.dueDate, cell: (r) => calendarDate(r.due_date, locale) },
          {
            header: t.charges,
            cell: (r) => `${r.charge_id} ${r.installment}/${r.installments}`,
          },
          { header: t.net, num: true, cell: (r) => brl(r.net_amount_cents) },
        ]}
      />
      <Section title={t.simulation}>
        <ErrorBox error={simulation.error} />
        {s && (
          <div aria-live="polite" data-testid="simulation">
            <dl className="facts">
              <dt>{t.count}</dt>
              <dd>{s.eligible_receivable_count}</dd>
              <dt>{t.gross}</dt>
              <dd data-testid="sim-gross">{brl(s.gross_amount_cents)}</dd>
              <dt>{t.fee}</dt>
              <dd data-testid="sim-fee">{brl(s.fee_amount_cents)}</dd>
              <dt>{t.net}</dt>
              <dd data-testid="sim-net">{brl(s.net_amount_cents)}</dd>
              <dt>{t.days}</dt>
              <dd>
                {s.items.length > 0
                  ? `${Math.min(...s.items.map((i) => i.days_anticipated))}–${Math.max(...s.items.map((i) => i.days_anticipated))}`
                  : '–'}
              </dd>
            </dl>
            {s.fee_bps_per_month !== undefined && <p>{t.feeMonthly(s.fee_bps_per_month)}</p>}
            <p>
              {s.exposure.within_limit && s.treasury.within_limit ? t.withinLimit : t.overLimit}
            </p>
            <button
              type="button"
              className="primary"
              disabled={s.eligible_receivable_count === 0 || confirming !== null}
              onClick={() => setConfirming(`dash_${crypto.randomUUID()}`)}
            >
              {t.anticipate}
            </button>
          </div>
        )}
        {confirming !== null && s && (
          <Confirm
            question={t.anticipateConfirm(brl(s.net_amount_cents))}
            busy={busy}
            onConfirm={() => void execute()}
            onCancel={() => setConfirming(null)}
          />
        )}
        <Notice text={done && t.anticipated(brl(done.net_amount_cents))} />
        <ErrorBox error={actionError} />
      </Section>
      <Section title={t.history}>
        <ErrorBox error={history.error} />
        <ul data-testid="anticipation-history">
          {(history.value?.data ?? []).map((a) => (
            <li key={a.id}>
              {dateTime(a.created_at, locale)} · {a.id} · {t.gross} {brl(a.gross_amount_cents)} ·{' '}
              {t.fee} {brl(a.fee_amount_cents)} · {t.net} {brl(a.net_amount_cents)}
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}
