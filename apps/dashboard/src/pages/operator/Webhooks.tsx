import { useState } from 'react';
import type {
  Admin,
  WebhookDelivery,
  WebhookDeliveryWithAttempts,
  WebhookEndpoint,
} from '../../admin';
import { dateTime } from '../../format';
import { useAction, usePagedLoad } from '../../load';
import { PagedTable, Table, buttonColumn, statusColumn } from '../../table';
import { ErrorBox, Notice, Section, useLocale, useT } from '../../ui';

export function Webhooks({ admin, tenantId }: { admin: Admin; tenantId: string }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const endpoints = usePagedLoad(
    (page) => admin.webhookEndpoints(tenantId, page),
    [admin, tenantId],
  );
  const [endpointId, setEndpointId] = useState<string | null>(null);
  const deliveries = usePagedLoad(
    (page) => (endpointId === null ? Promise.resolve(null) : admin.deliveries(endpointId, page)),
    [admin, endpointId],
  );
  const [opened, setOpened] = useState<WebhookDeliveryWithAttempts | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const openAttempts = async (id: string) => {
    const delivery = await act(() => admin.delivery(id));
    if (delivery) setOpened(delivery);
  };
  // An endpoint's deliveries open at their first page, read anew when it is opened again.
  const openDeliveries = (id: string) => {
    setOpened(null);
    setEndpointId(id);
    deliveries.first();
  };
  const redeliver = async (id: string) => {
    if (await act(() => admin.redeliver(id))) {
      setNotice(t.redelivered);
      deliveries.reload();
      if (opened?.id === id) setOpened(null);
    }
  };

  return (
    <Section title={t.webhooks}>
      <h3>{t.endpoints}</h3>
      <ErrorBox error={error ?? endpoints.error ?? deliveries.error} />
      <PagedTable
        list={endpoints}
        empty={t.none}
        columns={[
          { header: t.url, cell: (e) => e.url },
          { header: t.id, cell: (e) => <code>{e.id}</code> },
          { header: t.type, cell: (e) => e.events.join(', ') },
          { header: t.environment, cell: (e) => e.environment },
          { header: t.created, cell: (e) => dateTime(e.created_at, locale) },
          buttonColumn<WebhookEndpoint>({
            label: t.deliveries,
            name: (e) => e.id,
            onClick: (e) => openDeliveries(e.id),
          }),
        ]}
      />
      <Notice text={notice} />
      {endpointId !== null && deliveries.value && (
        <>
          <h3>
            {t.deliveries}: <code>{endpointId}</code>
          </h3>
          <button type="button" onClick={deliveries.reload}>
            {t.refresh}
          </button>
          <PagedTable
            list={deliveries}
            columns={[
              { header: t.id, cell: (d) => <code>{d.id}</code> },
              { header: t.type, cell: (d) => d.event_type },
              statusColumn<WebhookDelivery>(t.status, 'delivery', (d) => d.status),
              { header: t.attempts, num: true, cell: (d) => d.attempt_count },
              {
                header: t.error,
                cell: (d) =>
                  [d.last_status_code === null ? null : `HTTP ${d.last_status_code}`, d.last_error]
                    .filter((part) => part !== null)
                    .join(' · '),
              },
              { header: t.created, cell: (d) => dateTime(d.created_at, locale) },
              {
                header: (
                  <span className="sr-only">
                    {t.attempts}, {t.redeliver}
                  </span>
                ),
                cell: (d) => (
                  <>
                    <button
                      type="button"
                      className="link"
                      onClick={() => void openAttempts(d.id)}
                      aria-label={t.attemptsOf(d.id)}
                    >
                      {t.attempts}
                    </button>{' '}
                    <button
                      type="button"
                      onClick={() => void redeliver(d.id)}
                      disabled={busy}
                      aria-label={`${t.redeliver} ${d.id}`}
                    >
                      {t.redeliver}
                    </button>
                  </>
                ),
              },
            ]}
          />
        </>
      )}
      {opened && (
        <>
          <h3>{t.attemptsOf(opened.id)}</h3>
          <Table
            rows={opened.attempts}
            label={t.attemptsOf(opened.id)}
            testId={`attempts-${opened.id}`}
            rowKey={(a) => a.number}
            columns={[
              { header: '#', num: true, cell: (a) => a.number },
              { header: t.sentAt, cell: (a) => dateTime(a.started_at, locale) },
              {
                header: t.answer,
                cell: (a) => (
                  <span className={`status delivery-${a.succeeded ? 'succeeded' : 'failed'}`}>
                    {a.status_code === null ? '—' : `HTTP ${a.status_code}`}
                  </span>
                ),
              },
              { header: t.latency, num: true, cell: (a) => a.latency_ms },
              { header: t.error, cell: (a) => a.error ?? a.response_excerpt ?? '' },
            ]}
          />
        </>
      )}
    </Section>
  );
}
