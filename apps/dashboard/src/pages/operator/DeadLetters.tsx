import { useState } from 'react';
import { PARKING_SERVICES, type Admin, type DeadLetter, type ParkingService } from '../../admin';
import { dateTime } from '../../format';
import { useAction, useLoad, usePagedLoad } from '../../load';
import { buttonColumn, PagedTable } from '../../table';
import { Confirm, ErrorBox, Notice, Section, useLocale, useT } from '../../ui';

/** A replay waiting for its confirmation: one parked event, or every one of the service's. */
type Pending = { kind: 'one'; letter: DeadLetter } | { kind: 'all' };

// The events each service's consumers parked (docs/runbook.md "Parked events"): listed with why, replayed
// one by one or all at once after the deploy that fixes their cause. What the page shows after a replay is
// the API's list read again.
export function DeadLetters({ admin }: { admin: Admin }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [service, setService] = useState<ParkingService>(PARKING_SERVICES[0]);
  const [status, setStatus] = useState<DeadLetter['status'] | ''>('parked');
  const [pending, setPending] = useState<Pending | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const list = usePagedLoad(
    (page) => admin.deadLetters(service, page, status === '' ? null : status),
    [admin, service, status, round],
  );
  // How many each service holds parked, so the operator sees where to look.
  const parked = useLoad(
    () =>
      Promise.all(
        PARKING_SERVICES.map(async (s) => (await admin.deadLetters(s, 1, 'parked', 1)).total),
      ),
    [admin, round],
  );

  const replay = async () => {
    if (pending === null) return;
    const done =
      pending.kind === 'one'
        ? await act(async () => {
            const letter = await admin.replayDeadLetter(service, pending.letter.id);
            return t.replayedOne(letter.event_id, letter.status);
          })
        : await act(async () => {
            const result = await admin.replayDeadLetters(service);
            return t.replayedAll(result.replayed, result.still_parked);
          });
    setPending(null);
    if (done !== undefined) setNotice(done);
    setRound((n) => n + 1);
  };

  return (
    <Section title={t.deadLetters}>
      <p className="help">{t.deadLettersHelp}</p>
      <div className="filters">
        <label>
          {t.service}
          <select
            value={service}
            onChange={(e) => (
              setService(e.target.value as ParkingService),
              setNotice(null),
              list.setPage(1)
            )}
          >
            {PARKING_SERVICES.map((s, i) => (
              <option key={s} value={s}>
                {parked.value === undefined ? s : t.serviceParked(s, parked.value[i] ?? 0)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t.status}
          <select
            value={status}
            onChange={(e) => (
              setStatus(e.target.value as DeadLetter['status'] | ''),
              list.setPage(1)
            )}
          >
            <option value="parked">parked</option>
            <option value="replayed">replayed</option>
            <option value="">{t.all}</option>
          </select>
        </label>
        <button type="button" onClick={() => setRound((n) => n + 1)}>
          {t.refresh}
        </button>
        <button
          type="button"
          onClick={() => setPending({ kind: 'all' })}
          disabled={busy || pending !== null}
        >
          {t.replayAll}
        </button>
      </div>
      {pending !== null && (
        <Confirm
          question={
            pending.kind === 'one'
              ? t.replayConfirm(pending.letter.event_id)
              : t.replayAllConfirm(service)
          }
          busy={busy}
          onConfirm={() => void replay()}
          onCancel={() => setPending(null)}
        />
      )}
      <Notice text={notice} />
      <ErrorBox error={error ?? list.error ?? parked.error} />
      <PagedTable
        list={list}
        empty={t.noDeadLetters}
        label={t.deadLetters}
        testId="dead-letters"
        rowTestId={(d) => `dead-letter-${d.id}`}
        columns={[
          { header: t.parkedAt, cell: (d) => dateTime(d.parked_at, locale) },
          { header: t.type, cell: (d) => d.event_type ?? '—' },
          {
            header: t.topic,
            cell: (d) =>
              `${d.topic}${d.partition === null ? '' : ` · ${d.partition}`}${d.offset === null ? '' : ` · ${d.offset}`}`,
          },
          { header: t.consumer, cell: (d) => d.consumer },
          { header: t.reason, cell: (d) => d.reason },
          { header: t.lastError, cell: (d) => d.error ?? '' },
          { header: t.eventId, cell: (d) => <code>{d.event_id}</code> },
          {
            header: t.status,
            cell: (d) => (
              <span data-testid={`dead-letter-status-${d.id}`}>
                {d.replayed_at === null
                  ? d.status
                  : `${d.status} ${dateTime(d.replayed_at, locale)}`}
              </span>
            ),
          },
          buttonColumn<DeadLetter>({
            label: t.replay,
            name: (d) => d.event_id,
            onClick: (d) => setPending({ kind: 'one', letter: d }),
            disabled: busy || pending !== null,
            when: (d) => d.status === 'parked',
          }),
        ]}
      />
    </Section>
  );
}
