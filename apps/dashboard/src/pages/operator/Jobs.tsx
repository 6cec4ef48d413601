import { useState, type FormEvent } from 'react';
import { JOBS, type Admin, type Chargeback, type JobResult } from '../../admin';
import { brl, centsFromReais, dateTime } from '../../format';
import { TextField } from '../../form';
import { useAction } from '../../load';
import { Table } from '../../table';
import { Confirm, ErrorBox, Notice, Section, useLocale, useT } from '../../ui';

export function Jobs({ admin }: { admin: Admin }) {
  const t = useT();
  const { busy, error, act } = useAction();
  const [asOf, setAsOf] = useState('');
  const [results, setResults] = useState<JobResult[]>([]);
  const [chargeId, setChargeId] = useState('');
  const [notice, setNotice] = useState<string | null>(null);

  const run = async (job: (typeof JOBS)[number]) => {
    const result = await act(() => admin.runJob(job, asOf === '' ? null : asOf));
    if (result) setResults((list) => [result, ...list]);
  };

  return (
    <>
      <Section title={t.jobs}>
        <label className="filters">
          {t.asOfDate}
          <input type="date" value={asOf} onChange={(e) => setAsOf(e.target.value)} />
        </label>
        <ul className="buttons">
          {JOBS.map((job) => (
            <li key={job}>
              <button type="button" onClick={() => void run(job)} disabled={busy}>
                {t.run} {job}
              </button>
            </li>
          ))}
        </ul>
        <ul data-testid="job-results">
          {results.map((r, i) => (
            <li key={i}>
              {r.job} · {r.as_of_date} · {t.processed(r.processed)}
            </li>
          ))}
        </ul>
      </Section>
      <Section title={t.providerMode}>
        <ul className="buttons">
          {(['normal', 'unavailable', 'timeout'] as const).map((mode) => (
            <li key={mode}>
              <button
                type="button"
                disabled={busy}
                onClick={() =>
                  void act(() => admin.providerMode(mode)).then(
                    (answer) => answer && setNotice(`${t.providerMode}: ${mode}`),
                  )
                }
              >
                {mode}
              </button>
            </li>
          ))}
        </ul>
        <form
          className="inline-form"
          onSubmit={(e) => (
            e.preventDefault(),
            void act(() => admin.payCharge(chargeId.trim())).then(
              (c) => c && setNotice(`${c.id}: ${c.status}`),
            )
          )}
        >
          <TextField
            id="pay-charge"
            label={t.payCharge}
            value={chargeId}
            onChange={setChargeId}
            required
          />
          <button type="submit" disabled={busy}>
            {t.pay}
          </button>
        </form>
        <Notice text={notice} />
        <ErrorBox error={error} />
      </Section>
      <Chargebacks admin={admin} />
    </>
  );
}

/**
 * Contract §5's chargeback simulations: the issuer disputes a paid card charge (whole, or part of it), and
 * the dispute is won (the reserve goes back to the seller) or lost (the amount is debited). Resolving moves
 * money, so it asks first. The table holds the chargebacks this page opened or resolved, as the API answered.
 */
function Chargebacks({ admin }: { admin: Admin }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [chargeId, setChargeId] = useState('');
  const [amount, setAmount] = useState('');
  const [reasonCode, setReasonCode] = useState('');
  const [chargebackId, setChargebackId] = useState('');
  const [outcome, setOutcome] = useState<'won' | 'lost'>('won');
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [problem, setProblem] = useState<Error | null>(null);
  const [seen, setSeen] = useState<Chargeback[]>([]);

  const show = (chargeback: Chargeback) => {
    setSeen((list) => [chargeback, ...list.filter((c) => c.id !== chargeback.id)]);
    setNotice(t.chargebackDone(chargeback.id, chargeback.status));
  };

  const openOne = async (event: FormEvent) => {
    event.preventDefault();
    const cents = centsFromReais(amount);
    if (Number.isNaN(cents)) return setProblem(new Error(t.chargebackAmount));
    setProblem(null);
    const chargeback = await act(() =>
      admin.openChargeback({
        charge_id: chargeId.trim(),
        ...(cents === null ? {} : { amount_cents: cents }),
        ...(reasonCode.trim() === '' ? {} : { reason_code: reasonCode.trim() }),
      }),
    );
    if (chargeback === undefined) return;
    show(chargeback);
    setChargebackId(chargeback.id);
  };

  const resolve = async () => {
    const chargeback = await act(() => admin.resolveChargeback(chargebackId.trim(), outcome));
    setConfirming(false);
    if (chargeback !== undefined) show(chargeback);
  };

  return (
    <Section title={t.chargebacks}>
      <form className="inline-form" aria-label={t.openChargeback} onSubmit={(e) => void openOne(e)}>
        <TextField
          id="chargeback-charge"
          label={t.chargeId}
          value={chargeId}
          onChange={setChargeId}
          required
        />
        <TextField
          id="chargeback-amount"
          label={t.chargebackAmount}
          inputMode="decimal"
          value={amount}
          onChange={setAmount}
        />
        <TextField
          id="chargeback-reason"
          label={t.reasonCode}
          value={reasonCode}
          onChange={setReasonCode}
        />
        <button type="submit" disabled={busy}>
          {t.openChargeback}
        </button>
      </form>
      <form
        className="inline-form"
        aria-label={t.resolveChargeback}
        onSubmit={(e) => (e.preventDefault(), setConfirming(true))}
      >
        <TextField
          id="chargeback-id"
          label={t.chargebackId}
          value={chargebackId}
          onChange={setChargebackId}
          required
        />
        <label htmlFor="chargeback-outcome">{t.outcome}</label>
        <select
          id="chargeback-outcome"
          value={outcome}
          onChange={(e) => setOutcome(e.target.value as 'won' | 'lost')}
        >
          <option value="won">{t.won}</option>
          <option value="lost">{t.lost}</option>
        </select>
        <button type="submit" disabled={busy || confirming}>
          {t.resolve}
        </button>
      </form>
      {confirming && (
        <Confirm
          question={t.resolveConfirm(chargebackId.trim(), outcome)}
          busy={busy}
          onConfirm={() => void resolve()}
          onCancel={() => setConfirming(false)}
        />
      )}
      <Notice text={notice} />
      <ErrorBox error={problem ?? error} />
      {seen.length > 0 && (
        <Table
          rows={seen}
          label={t.chargebacks}
          testId="chargebacks"
          rowKey={(c) => c.id}
          rowTestId={(c) => `chargeback-${c.id}`}
          columns={[
            { header: t.id, cell: (c) => <code>{c.id}</code> },
            { header: t.charges, cell: (c) => <code>{c.charge_id}</code> },
            { header: t.amount, num: true, cell: (c) => brl(c.amount_cents) },
            { header: t.reason, cell: (c) => c.reason_code ?? '' },
            { header: t.status, cell: (c) => c.status },
            {
              header: t.created,
              cell: (c) => dateTime(c.opened_at, locale),
            },
          ]}
        />
      )}
    </Section>
  );
}
