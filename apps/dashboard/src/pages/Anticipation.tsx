import { useState } from 'react';
import type { Anticipation as AnticipationResource, Gateway } from '@pgw/sdk';
import { brl, calendarDate, dateTime, saoPauloDay } from '../format';
import { Confirm, ErrorBox, Section, useLoad, useLocale, useT } from '../ui';

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
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [done, setDone] = useState<AnticipationResource | null>(null);
  const today = saoPauloDay(new Date());
  // Eligible (contract §4): pending, not anticipated, due after today.
  const eligible = useLoad(async () => (await gateway.receivables.list({ status: 'pending', limit: 100 }).toArray(ELIGIBLE_MAX)).filter((r) => r.anticipation_id === null && r.due_date > today), [gateway, round]);
  const ids = mode === 'all' ? null : picked;
  const simulation = useLoad(() => (ids !== null && ids.length === 0 ? Promise.resolve(null) : gateway.anticipations.simulate(ids === null ? {} : { receivable_ids: [...ids] })), [gateway, mode, picked.join(','), round]);
  const history = useLoad(() => Promise.resolve(gateway.anticipations.list({ limit: 20 })), [gateway, round]);

  const toggle = (id: string) => setPicked((list) => (list.includes(id) ? list.filter((x) => x !== id) : list.length < PICK_MAX ? [...list, id] : list));

  const execute = async () => {
    if (confirming === null) return;
    setBusy(true);
    try {
      const anticipation = await gateway.anticipations.create(ids === null ? {} : { receivable_ids: [...ids] }, { idempotencyKey: confirming });
      setDone(anticipation);
      setActionError(null);
      setPicked([]);
      setRound((n) => n + 1);
    } catch (error) {
      setActionError(error);
    } finally {
      setBusy(false);
      setConfirming(null);
    }
  };

  const s = simulation.value;
  return (
    <>
      <h1>{t.anticipation}</h1>
      <fieldset className="choice">
        <legend>{t.anticipation}</legend>
        <label>
          <input type="radio" name="anticipation-mode" checked={mode === 'all'} onChange={() => setMode('all')} /> {t.allEligible}
        </label>
        <label>
          <input type="radio" name="anticipation-mode" checked={mode === 'pick'} onChange={() => setMode('pick')} /> {t.pickReceivables}
        </label>
      </fieldset>
      <ErrorBox error={eligible.error} />
      {eligible.value && eligible.value.length === 0 && <p>{t.nothingEligible}</p>}
      {eligible.value && eligible.value.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t.select}</th>
                <th scope="col">{t.dueDate}</th>
                <th scope="col">{t.charges}</th>
                <th scope="col" className="num">
                  {t.net}
                </th>
              </tr>
            </thead>
            <tbody>
              {eligible.value.map((r) => (
                <tr key={r.id}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`${t.select} ${r.id}`}
                      disabled={mode === 'all'}
                      checked={mode === 'all' || picked.includes(r.id)}
                      onChange={() => toggle(r.id)}
                    />
                  </td>
                  <td>{calendarDate(r.due_date, locale)}</td>
                  <td>
                    {r.charge_id} {r.installment}/{r.installments}
                  </td>
                  <td className="num">{brl(r.net_amount_cents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
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
              <dd>{s.items.length > 0 ? `${Math.min(...s.items.map((i) => i.days_anticipated))}–${Math.max(...s.items.map((i) => i.days_anticipated))}` : '–'}</dd>
            </dl>
            {s.fee_bps_per_month !== undefined && <p>{t.feeMonthly(s.fee_bps_per_month)}</p>}
            <p>{s.exposure.within_limit && s.treasury.within_limit ? t.withinLimit : t.overLimit}</p>
            <button type="button" className="primary" disabled={s.eligible_receivable_count === 0 || confirming !== null} onClick={() => setConfirming(`dash_${crypto.randomUUID()}`)}>
              {t.anticipate}
            </button>
          </div>
        )}
        {confirming !== null && s && <Confirm question={t.anticipateConfirm(brl(s.net_amount_cents))} busy={busy} onConfirm={() => void execute()} onCancel={() => setConfirming(null)} />}
        {done && (
          <p role="status" className="notice">
            {t.anticipated(brl(done.net_amount_cents))}
          </p>
        )}
        <ErrorBox error={actionError} />
      </Section>
      <Section title={t.history}>
        <ErrorBox error={history.error} />
        <ul data-testid="anticipation-history">
          {(history.value?.data ?? []).map((a) => (
            <li key={a.id}>
              {dateTime(a.created_at, locale)} · {a.id} · {t.gross} {brl(a.gross_amount_cents)} · {t.fee} {brl(a.fee_amount_cents)} · {t.net} {brl(a.net_amount_cents)}
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}
