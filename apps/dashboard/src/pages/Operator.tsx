import { useState, type FormEvent } from 'react';
import { Admin, JOBS, PERMISSIONS, type JobResult, type KycStatus, type WebhookDeliveryWithAttempts } from '../admin';
import { dateTime } from '../format';
import { Confirm, ErrorBox, Pager, Section, useLoad, useLocale, useT } from '../ui';

// The operator API (contract §5): tenants are listed, and a tenant's sellers, keys, pricing plans and
// webhook endpoints under it, so the operator picks rather than types ids. Every list is read again after
// a change: what the page shows is what the API answers, never what the page assumes it did.

/** The pages that show one tenant's things, and need one chosen. */
const TENANT_PAGES = ['sellers', 'api-keys', 'pricing-plans', 'webhooks'];

export function Operator({ admin, page }: { admin: Admin; page: string }) {
  const t = useT();
  // Kept while the operator moves between pages; a new sign-in starts with none chosen.
  const [tenantId, setTenantId] = useState<string | null>(null);
  return (
    <>
      <h1>{t.operatorMode}</h1>
      {page === 'tenants' && <Tenants admin={admin} onOpen={(id, target) => (setTenantId(id), (window.location.hash = `#/${target}`))} />}
      {TENANT_PAGES.includes(page) && <TenantPicker admin={admin} tenantId={tenantId} onChange={setTenantId} />}
      {tenantId !== null && page === 'sellers' && <Sellers key={tenantId} admin={admin} tenantId={tenantId} />}
      {tenantId !== null && page === 'api-keys' && <ApiKeys key={tenantId} admin={admin} tenantId={tenantId} />}
      {tenantId !== null && page === 'pricing-plans' && <PricingPlans key={tenantId} admin={admin} tenantId={tenantId} />}
      {tenantId !== null && page === 'webhooks' && <Webhooks key={tenantId} admin={admin} tenantId={tenantId} />}
      {page === 'jobs' && <Jobs admin={admin} />}
    </>
  );
}

/** Runs an operator call, keeping its error (message and request id) to show. */
function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const act = async <T,>(call: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    try {
      const value = await call();
      setError(null);
      return value;
    } catch (failure) {
      setError(failure);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, act };
}

// The picker offers the newest tenants, as many as one page of the API holds; an older one is opened
// from the Tenants page, which pages through all of them.
const PICKER_TENANTS_MAX = 100;

function TenantPicker({ admin, tenantId, onChange }: { admin: Admin; tenantId: string | null; onChange: (id: string | null) => void }) {
  const t = useT();
  const tenants = useLoad(() => admin.tenants(1, PICKER_TENANTS_MAX), [admin]);
  const known = tenants.value?.data ?? [];
  return (
    <>
      {/* Labelled by `for`, not by wrapping: a wrapped select's name would take in its chosen option. */}
      <div className="filters field">
        <label htmlFor="tenant-picker">{t.tenant}</label>
        <select id="tenant-picker" value={tenantId ?? ''} onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)}>
          <option value="">—</option>
          {tenantId !== null && !known.some((tenant) => tenant.id === tenantId) && <option value={tenantId}>{tenantId}</option>}
          {known.map((tenant) => (
            <option key={tenant.id} value={tenant.id}>
              {tenant.name} ({tenant.id})
            </option>
          ))}
        </select>
      </div>
      {tenantId === null && <p className="help">{t.chooseTenant}</p>}
      <ErrorBox error={tenants.error} />
    </>
  );
}

function Tenants({ admin, onOpen }: { admin: Admin; onOpen: (tenantId: string, page: string) => void }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [page, setPage] = useState(1);
  const [name, setName] = useState('');
  const tenants = useLoad(() => admin.tenants(page), [admin, page]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (await act(() => admin.createTenant(name))) {
      setName('');
      // The newest tenant is on the first page.
      if (page === 1) tenants.reload();
      else setPage(1);
    }
  };
  const targets: Array<[string, string]> = [
    ['sellers', t.sellers],
    ['api-keys', t.apiKeys],
    ['pricing-plans', t.pricingPlans],
    ['webhooks', t.webhooks],
  ];

  return (
    <Section title={t.tenants}>
      <form className="inline-form" onSubmit={(e) => void create(e)}>
        <label htmlFor="tenant-name">{t.name}</label>
        <input id="tenant-name" value={name} onChange={(e) => setName(e.target.value)} required />
        <button type="submit" disabled={busy}>
          {t.create}
        </button>
      </form>
      <ErrorBox error={error ?? tenants.error} />
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">{t.name}</th>
              <th scope="col">{t.id}</th>
              <th scope="col">{t.created}</th>
              <th scope="col">
                <span className="sr-only">{t.lookUp}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tenants.value?.data.map((tenant) => (
              <tr key={tenant.id}>
                <td>{tenant.name}</td>
                <td>
                  <code>{tenant.id}</code>
                </td>
                <td>{dateTime(tenant.created_at, locale)}</td>
                <td>
                  {targets.map(([target, label], index) => (
                    <span key={target}>
                      {index > 0 && ' · '}
                      <button type="button" className="link" onClick={() => onOpen(tenant.id, target)} aria-label={`${label}: ${tenant.name} ${tenant.id}`}>
                        {label}
                      </button>
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {tenants.value?.total === 0 && <p>{t.none}</p>}
      {tenants.value && <Pager page={tenants.value.page} pages={tenants.value.total_pages} onPage={setPage} />}
    </Section>
  );
}

function Sellers({ admin, tenantId }: { admin: Admin; tenantId: string }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [page, setPage] = useState(1);
  const [kyc, setKyc] = useState<KycStatus | ''>('');
  const [form, setForm] = useState({ name: '', document: '' });
  const [approving, setApproving] = useState<string | null>(null);
  const sellers = useLoad(() => admin.sellers(tenantId, page, kyc === '' ? {} : { kyc_status: kyc }), [admin, tenantId, page, kyc]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (await act(() => admin.createSeller(tenantId, { name: form.name, document: form.document.replace(/\D/g, '') }))) {
      setForm({ name: '', document: '' });
      sellers.reload();
    }
  };
  const approve = async () => {
    if (approving === null) return;
    await act(() => admin.updateSeller(approving, { kyc_status: 'approved' }));
    setApproving(null);
    sellers.reload();
  };

  return (
    <Section title={t.sellers}>
      <form className="grid-form" onSubmit={(e) => void create(e)}>
        <label>
          {t.name}
          <input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required />
        </label>
        <label>
          {t.document}
          <input value={form.document} onChange={(e) => setForm({ ...form, document: e.target.value })} required />
        </label>
        <button type="submit" disabled={busy}>
          {t.create}
        </button>
      </form>
      <div className="filters field">
        <label htmlFor="kyc-filter">{t.kycStatus}</label>
        <select id="kyc-filter" value={kyc} onChange={(e) => (setKyc(e.target.value as KycStatus | ''), setPage(1))}>
          <option value="">{t.all}</option>
          <option value="pending">pending</option>
          <option value="approved">approved</option>
          <option value="rejected">rejected</option>
        </select>
      </div>
      {approving !== null && <Confirm question={t.approveConfirm(approving)} busy={busy} onConfirm={() => void approve()} onCancel={() => setApproving(null)} />}
      <ErrorBox error={error ?? sellers.error} />
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">{t.name}</th>
              <th scope="col">{t.sellerId}</th>
              <th scope="col">{t.document}</th>
              <th scope="col">{t.kycStatus}</th>
              <th scope="col">{t.created}</th>
              <th scope="col">
                <span className="sr-only">{t.approve}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sellers.value?.data.map((s) => (
              <tr key={s.id}>
                <td>{s.name}</td>
                <td>
                  <code>{s.id}</code>
                </td>
                <td>{s.document}</td>
                <td>
                  <span className={`status kyc-${s.kyc_status}`} data-testid={`kyc-${s.id}`}>
                    {s.kyc_status}
                  </span>
                </td>
                <td>{dateTime(s.created_at, locale)}</td>
                <td>
                  {s.kyc_status !== 'approved' && (
                    <button type="button" onClick={() => setApproving(s.id)} disabled={busy} aria-label={`${t.approve} ${s.id}`}>
                      {t.approve}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {sellers.value?.total === 0 && <p>{t.none}</p>}
      {sellers.value && <Pager page={sellers.value.page} pages={sellers.value.total_pages} onPage={setPage} />}
    </Section>
  );
}

// The seller picker of a new key offers this many of the tenant's sellers, newest first.
const PICKER_SELLERS_MAX = 100;

function ApiKeys({ admin, tenantId }: { admin: Admin; tenantId: string }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [page, setPage] = useState(1);
  const [form, setForm] = useState({ sellerId: '', environment: 'test' as 'test' | 'live', permissions: [...PERMISSIONS] as string[] });
  const [secret, setSecret] = useState<{ id: string; value: string } | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const keys = useLoad(() => admin.apiKeys(tenantId, page), [admin, tenantId, page]);
  const sellers = useLoad(() => admin.sellers(tenantId, 1, {}, PICKER_SELLERS_MAX), [admin, tenantId]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const key = await act(() => admin.createApiKey({ tenant_id: tenantId, seller_id: form.sellerId === '' ? null : form.sellerId, environment: form.environment, permissions: form.permissions }));
    if (key) {
      // The secret is shown this once and kept nowhere: the list, read again, never has it.
      setSecret(key.secret ? { id: key.id, value: key.secret } : null);
      if (page === 1) keys.reload();
      else setPage(1);
    }
  };
  const revoke = async () => {
    if (revoking === null) return;
    await act(() => admin.revokeApiKey(revoking));
    setRevoking(null);
    keys.reload();
  };
  const toggle = (permission: string) =>
    setForm((f) => ({ ...f, permissions: f.permissions.includes(permission) ? f.permissions.filter((p) => p !== permission) : [...f.permissions, permission] }));
  const sellerName = (id: string | null) => (id === null ? t.tenantWide : (sellers.value?.data.find((s) => s.id === id)?.name ?? id));

  return (
    <Section title={t.apiKeys}>
      <form className="grid-form" onSubmit={(e) => void create(e)}>
        {/* Labelled by `for`, not by wrapping: a wrapped select's name would take in its chosen option. */}
        <div className="field">
          <label htmlFor="key-seller">{t.seller}</label>
          <select id="key-seller" value={form.sellerId} onChange={(e) => setForm({ ...form, sellerId: e.target.value })}>
            <option value="">{t.tenantWide}</option>
            {sellers.value?.data.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} ({s.id})
              </option>
            ))}
          </select>
        </div>
        <label>
          {t.environment}
          <select value={form.environment} onChange={(e) => setForm({ ...form, environment: e.target.value as 'test' | 'live' })}>
            <option value="test">test</option>
            <option value="live">live</option>
          </select>
        </label>
        <fieldset>
          <legend>{t.permissions}</legend>
          {PERMISSIONS.map((p) => (
            <label key={p} className="check">
              <input type="checkbox" checked={form.permissions.includes(p)} onChange={() => toggle(p)} /> {p}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={busy}>
          {t.create}
        </button>
      </form>
      {secret && (
        <div className="secret" role="status">
          <p>{t.secretOnce}</p>
          <code data-testid="secret-key-id">{secret.id}</code>: <code data-testid="secret">{secret.value}</code>
        </div>
      )}
      {revoking !== null && <Confirm question={t.revokeConfirm(revoking)} busy={busy} onConfirm={() => void revoke()} onCancel={() => setRevoking(null)} />}
      <ErrorBox error={error ?? keys.error ?? sellers.error} />
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">{t.id}</th>
              <th scope="col">{t.secretEnd}</th>
              <th scope="col">{t.environment}</th>
              <th scope="col">{t.seller}</th>
              <th scope="col">{t.permissions}</th>
              <th scope="col">{t.created}</th>
              <th scope="col">{t.status}</th>
              <th scope="col">
                <span className="sr-only">{t.revoke}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.value?.data.map((k) => (
              <tr key={k.id}>
                <td>
                  <code>{k.id}</code>
                </td>
                <td>
                  <code>{k.secret_last4 === null ? '—' : `sk_${k.environment}_…${k.secret_last4}`}</code>
                </td>
                <td>{k.environment}</td>
                <td>{sellerName(k.seller_id)}</td>
                <td title={k.permissions.join(', ')}>{k.permissions.length}</td>
                <td>{dateTime(k.created_at, locale)}</td>
                <td>
                  <span className={`status key-${k.status}`} data-testid={`key-${k.id}`}>
                    {k.status}
                  </span>
                </td>
                <td>
                  {k.status === 'active' && (
                    <button type="button" onClick={() => setRevoking(k.id)} disabled={busy} aria-label={`${t.revoke} ${k.id}`}>
                      {t.revoke}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {keys.value?.total === 0 && <p>{t.none}</p>}
      {keys.value && <Pager page={keys.value.page} pages={keys.value.total_pages} onPage={setPage} />}
    </Section>
  );
}

function PricingPlans({ admin, tenantId }: { admin: Admin; tenantId: string }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [page, setPage] = useState(1);
  const [form, setForm] = useState({ name: '', feeBpsPerMonth: '', settlementDelayDays: '', isDefault: false });
  const plans = useLoad(() => admin.pricingPlans(tenantId, page), [admin, tenantId, page]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const body = { name: form.name, fee_bps_per_month: Number(form.feeBpsPerMonth), settlement_delay_days: Number(form.settlementDelayDays), default: form.isDefault };
    if (await act(() => admin.createPricingPlan(tenantId, body))) {
      setForm({ name: '', feeBpsPerMonth: '', settlementDelayDays: '', isDefault: false });
      if (page === 1) plans.reload();
      else setPage(1);
    }
  };

  return (
    <Section title={t.pricingPlans}>
      <form className="grid-form" onSubmit={(e) => void create(e)}>
        <label>
          {t.name}
          <input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required />
        </label>
        <label>
          {t.feeBpsPerMonth}
          <input type="number" min={0} step={1} inputMode="numeric" value={form.feeBpsPerMonth} onChange={(e) => setForm({ ...form, feeBpsPerMonth: e.target.value })} required />
        </label>
        <label>
          {t.settlementDelayDays}
          <input type="number" min={0} step={1} inputMode="numeric" value={form.settlementDelayDays} onChange={(e) => setForm({ ...form, settlementDelayDays: e.target.value })} required />
        </label>
        <label className="check">
          <input type="checkbox" checked={form.isDefault} onChange={(e) => setForm({ ...form, isDefault: e.target.checked })} /> {t.makeDefault}
        </label>
        <button type="submit" disabled={busy}>
          {t.create}
        </button>
      </form>
      <ErrorBox error={error ?? plans.error} />
      {/* Nothing in this table takes focus: the box does, so that a keyboard can scroll it on a phone. */}
      <div className="table-wrap" tabIndex={0} role="region" aria-label={t.pricingPlans}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t.name}</th>
              <th scope="col">{t.id}</th>
              <th scope="col" className="num">
                {t.feeBpsPerMonth}
              </th>
              <th scope="col" className="num">
                {t.settlementDelayDays}
              </th>
              <th scope="col">{t.mdrBps}</th>
              <th scope="col">{t.isDefault}</th>
              <th scope="col">{t.created}</th>
            </tr>
          </thead>
          <tbody>
            {plans.value?.data.map((plan) => (
              <tr key={plan.id} data-testid={`plan-${plan.id}`}>
                <td>{plan.name}</td>
                <td>
                  <code>{plan.id}</code>
                </td>
                <td className="num">{plan.fee_bps_per_month}</td>
                <td className="num">{plan.settlement_delay_days}</td>
                <td>{[plan.mdr_bps.credit_card, plan.mdr_bps.debit_card, plan.mdr_bps.pix, plan.mdr_bps.boleto].join(' · ')}</td>
                <td>{plan.default ? t.yes : t.no}</td>
                <td>{dateTime(plan.created_at, locale)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {plans.value?.total === 0 && <p>{t.none}</p>}
      {plans.value && <Pager page={plans.value.page} pages={plans.value.total_pages} onPage={setPage} />}
    </Section>
  );
}

function Webhooks({ admin, tenantId }: { admin: Admin; tenantId: string }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [page, setPage] = useState(1);
  const endpoints = useLoad(() => admin.webhookEndpoints(tenantId, page), [admin, tenantId, page]);
  const [endpoint, setEndpoint] = useState<{ id: string; page: number } | null>(null);
  const deliveries = useLoad(() => (endpoint === null ? Promise.resolve(null) : admin.deliveries(endpoint.id, endpoint.page)), [admin, endpoint]);
  const [opened, setOpened] = useState<WebhookDeliveryWithAttempts | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const openAttempts = async (id: string) => {
    const delivery = await act(() => admin.delivery(id));
    if (delivery) setOpened(delivery);
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
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">{t.url}</th>
              <th scope="col">{t.id}</th>
              <th scope="col">{t.type}</th>
              <th scope="col">{t.environment}</th>
              <th scope="col">{t.created}</th>
              <th scope="col">
                <span className="sr-only">{t.deliveries}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {endpoints.value?.data.map((e) => (
              <tr key={e.id}>
                <td>{e.url}</td>
                <td>
                  <code>{e.id}</code>
                </td>
                <td>{e.events.join(', ')}</td>
                <td>{e.environment}</td>
                <td>{dateTime(e.created_at, locale)}</td>
                <td>
                  <button type="button" onClick={() => (setOpened(null), setEndpoint({ id: e.id, page: 1 }))} aria-label={`${t.deliveries} ${e.id}`}>
                    {t.deliveries}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {endpoints.value?.total === 0 && <p>{t.none}</p>}
      {endpoints.value && <Pager page={endpoints.value.page} pages={endpoints.value.total_pages} onPage={setPage} />}
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {endpoint && deliveries.value && (
        <>
          <h3>
            {t.deliveries}: <code>{endpoint.id}</code>
          </h3>
          <button type="button" onClick={deliveries.reload}>
            {t.refresh}
          </button>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.id}</th>
                  <th scope="col">{t.type}</th>
                  <th scope="col">{t.status}</th>
                  <th scope="col" className="num">
                    {t.attempts}
                  </th>
                  <th scope="col">{t.error}</th>
                  <th scope="col">{t.created}</th>
                  <th scope="col">
                    <span className="sr-only">
                      {t.attempts}, {t.redeliver}
                    </span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {deliveries.value.data.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <code>{d.id}</code>
                    </td>
                    <td>{d.event_type}</td>
                    <td>
                      <span className={`status delivery-${d.status}`} data-testid={`delivery-${d.id}`}>
                        {d.status}
                      </span>
                    </td>
                    <td className="num">{d.attempt_count}</td>
                    <td>{[d.last_status_code === null ? null : `HTTP ${d.last_status_code}`, d.last_error].filter((part) => part !== null).join(' · ')}</td>
                    <td>{dateTime(d.created_at, locale)}</td>
                    <td>
                      <button type="button" className="link" onClick={() => void openAttempts(d.id)} aria-label={t.attemptsOf(d.id)}>
                        {t.attempts}
                      </button>{' '}
                      <button type="button" onClick={() => void redeliver(d.id)} disabled={busy} aria-label={`${t.redeliver} ${d.id}`}>
                        {t.redeliver}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={deliveries.value.page} pages={deliveries.value.total_pages} onPage={(p) => setEndpoint({ id: endpoint.id, page: p })} />
        </>
      )}
      {opened && (
        <>
          <h3>{t.attemptsOf(opened.id)}</h3>
          <div className="table-wrap" tabIndex={0} role="region" aria-label={t.attemptsOf(opened.id)}>
            <table data-testid={`attempts-${opened.id}`}>
              <thead>
                <tr>
                  <th scope="col" className="num">
                    #
                  </th>
                  <th scope="col">{t.sentAt}</th>
                  <th scope="col">{t.answer}</th>
                  <th scope="col" className="num">
                    {t.latency}
                  </th>
                  <th scope="col">{t.error}</th>
                </tr>
              </thead>
              <tbody>
                {opened.attempts.map((a) => (
                  <tr key={a.number}>
                    <td className="num">{a.number}</td>
                    <td>{dateTime(a.started_at, locale)}</td>
                    <td>
                      <span className={`status delivery-${a.succeeded ? 'succeeded' : 'failed'}`}>{a.status_code === null ? '—' : `HTTP ${a.status_code}`}</span>
                    </td>
                    <td className="num">{a.latency_ms}</td>
                    <td>{a.error ?? a.response_excerpt ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Section>
  );
}

function Jobs({ admin }: { admin: Admin }) {
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
              <button type="button" disabled={busy} onClick={() => void act(() => admin.providerMode(mode)).then((answer) => answer && setNotice(`${t.providerMode}: ${mode}`))}>
                {mode}
              </button>
            </li>
          ))}
        </ul>
        <form className="inline-form" onSubmit={(e) => (e.preventDefault(), void act(() => admin.payCharge(chargeId.trim())).then((c) => c && setNotice(`${c.id}: ${c.status}`)))}>
          <label htmlFor="pay-charge">{t.payCharge}</label>
          <input id="pay-charge" value={chargeId} onChange={(e) => setChargeId(e.target.value)} required />
          <button type="submit" disabled={busy}>
            {t.pay}
          </button>
        </form>
        {notice && (
          <p role="status" className="notice">
            {notice}
          </p>
        )}
        <ErrorBox error={error} />
      </Section>
    </>
  );
}
