import { useState, type FormEvent } from 'react';
import { Admin, JOBS, PERMISSIONS, type ApiKey, type JobResult, type Seller, type Tenant, type WebhookDelivery } from '../admin';
import { dateTime } from '../format';
import { Confirm, ErrorBox, Pager, Section, useLocale, useT } from '../ui';

// The operator API (contract §5) writes and returns what it wrote, and reads only deliveries: there is
// no list of tenants, sellers or keys to page through. So these pages act by id, and keep what this
// session created or opened, as the API answered it.

export function Operator({ admin, page }: { admin: Admin; page: string }) {
  const t = useT();
  return (
    <>
      <h1>{t.operatorMode}</h1>
      {page === 'sellers' && <Sellers admin={admin} />}
      {page === 'api-keys' && <ApiKeys admin={admin} />}
      {page === 'webhooks' && <Webhooks admin={admin} />}
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

function Sellers({ admin }: { admin: Admin }) {
  const t = useT();
  const { busy, error, act } = useAction();
  const [tenants, setTenants] = useState<Tenant[]>([]);
  const [sellers, setSellers] = useState<Seller[]>([]);
  const [tenantName, setTenantName] = useState('');
  const [form, setForm] = useState({ tenantId: '', name: '', document: '' });
  const [lookup, setLookup] = useState('');
  const [approving, setApproving] = useState<string | null>(null);
  const remember = (seller: Seller) => setSellers((list) => [seller, ...list.filter((s) => s.id !== seller.id)]);

  const createTenant = async (event: FormEvent) => {
    event.preventDefault();
    const tenant = await act(() => admin.createTenant(tenantName));
    if (tenant) {
      setTenants((list) => [tenant, ...list]);
      setForm((f) => ({ ...f, tenantId: tenant.id }));
    }
  };
  const createSeller = async (event: FormEvent) => {
    event.preventDefault();
    const seller = await act(() => admin.createSeller(form.tenantId, { name: form.name, document: form.document.replace(/\D/g, '') }));
    if (seller) remember(seller);
  };
  const approve = async () => {
    if (approving === null) return;
    const seller = await act(() => admin.updateSeller(approving, { kyc_status: 'approved' }));
    if (seller) remember(seller);
    setApproving(null);
  };

  return (
    <>
      <Section title={t.tenants}>
        <form className="inline-form" onSubmit={(e) => void createTenant(e)}>
          <label htmlFor="tenant-name">{t.name}</label>
          <input id="tenant-name" value={tenantName} onChange={(e) => setTenantName(e.target.value)} required />
          <button type="submit" disabled={busy}>
            {t.create}
          </button>
        </form>
        <ul>
          {tenants.map((tenant) => (
            <li key={tenant.id}>
              <code>{tenant.id}</code> {tenant.name}
            </li>
          ))}
        </ul>
      </Section>
      <Section title={t.sellers}>
        <form className="grid-form" onSubmit={(e) => void createSeller(e)}>
          <label>
            {t.tenantId}
            <input value={form.tenantId} onChange={(e) => setForm({ ...form, tenantId: e.target.value })} required />
          </label>
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
        <form className="inline-form" onSubmit={(e) => (e.preventDefault(), setApproving(lookup.trim()))}>
          <label htmlFor="seller-id">{t.sellerId}</label>
          <input id="seller-id" value={lookup} onChange={(e) => setLookup(e.target.value)} required />
          <button type="submit" disabled={busy}>
            {t.approve}
          </button>
        </form>
        {approving !== null && <Confirm question={t.approveConfirm(approving)} busy={busy} onConfirm={() => void approve()} onCancel={() => setApproving(null)} />}
        <ErrorBox error={error} />
        <h3>{t.known}</h3>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t.sellerId}</th>
                <th scope="col">{t.name}</th>
                <th scope="col">{t.kycStatus}</th>
                <th scope="col">
                  <span className="sr-only">{t.approve}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sellers.map((s) => (
                <tr key={s.id}>
                  <td>
                    <code>{s.id}</code>
                  </td>
                  <td>{s.name}</td>
                  <td>
                    <span className={`status kyc-${s.kyc_status}`} data-testid={`kyc-${s.id}`}>
                      {s.kyc_status}
                    </span>
                  </td>
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
      </Section>
    </>
  );
}

function ApiKeys({ admin }: { admin: Admin }) {
  const t = useT();
  const { busy, error, act } = useAction();
  const [form, setForm] = useState({ tenantId: '', sellerId: '', environment: 'test' as 'test' | 'live', permissions: [...PERMISSIONS] as string[] });
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [secret, setSecret] = useState<{ id: string; value: string } | null>(null);
  const [revokeId, setRevokeId] = useState('');
  const [revoking, setRevoking] = useState<string | null>(null);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const key = await act(() =>
      admin.createApiKey({ tenant_id: form.tenantId.trim(), seller_id: form.sellerId.trim() === '' ? null : form.sellerId.trim(), environment: form.environment, permissions: form.permissions }),
    );
    if (key) {
      // The secret is shown this once and kept nowhere: the list keeps the key without it.
      setSecret(key.secret ? { id: key.id, value: key.secret } : null);
      const { secret: _shownOnce, ...kept } = key;
      setKeys((list) => [kept, ...list]);
    }
  };
  const revoke = async () => {
    if (revoking === null) return;
    const key = await act(() => admin.revokeApiKey(revoking));
    if (key) setKeys((list) => [key, ...list.filter((k) => k.id !== key.id)]);
    setRevoking(null);
  };
  const toggle = (permission: string) =>
    setForm((f) => ({ ...f, permissions: f.permissions.includes(permission) ? f.permissions.filter((p) => p !== permission) : [...f.permissions, permission] }));

  return (
    <Section title={t.apiKeys}>
      <form className="grid-form" onSubmit={(e) => void create(e)}>
        <label>
          {t.tenantId}
          <input value={form.tenantId} onChange={(e) => setForm({ ...form, tenantId: e.target.value })} required />
        </label>
        <label>
          {t.sellerId}
          <input value={form.sellerId} onChange={(e) => setForm({ ...form, sellerId: e.target.value })} />
        </label>
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
          <code data-testid="secret">{secret.value}</code>
        </div>
      )}
      <form className="inline-form" onSubmit={(e) => (e.preventDefault(), setRevoking(revokeId.trim()))}>
        <label htmlFor="revoke-id">{t.apiKeys} (key_…)</label>
        <input id="revoke-id" value={revokeId} onChange={(e) => setRevokeId(e.target.value)} required />
        <button type="submit" disabled={busy}>
          {t.revoke}
        </button>
      </form>
      {revoking !== null && <Confirm question={t.revokeConfirm(revoking)} busy={busy} onConfirm={() => void revoke()} onCancel={() => setRevoking(null)} />}
      <ErrorBox error={error} />
      <h3>{t.known}</h3>
      <ul>
        {keys.map((k) => (
          <li key={k.id}>
            <code>{k.id}</code> · {k.environment} · {k.seller_id ?? k.tenant_id} · <span data-testid={`key-${k.id}`}>{k.status}</span>{' '}
            {k.status === 'active' && (
              <button type="button" onClick={() => setRevoking(k.id)} disabled={busy} aria-label={`${t.revoke} ${k.id}`}>
                {t.revoke}
              </button>
            )}
          </li>
        ))}
      </ul>
    </Section>
  );
}

function Webhooks({ admin }: { admin: Admin }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [endpointId, setEndpointId] = useState('');
  const [shown, setShown] = useState<{ endpointId: string; page: number; pages: number; data: WebhookDelivery[] } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = async (id: string, page: number) => {
    const answer = await act(() => admin.deliveries(id, page));
    if (answer) setShown({ endpointId: id, page: answer.page, pages: answer.total_pages, data: answer.data });
  };
  const redeliver = async (id: string) => {
    const delivery = await act(() => admin.redeliver(id));
    if (delivery && shown) {
      setNotice(t.redelivered);
      setShown({ ...shown, data: shown.data.map((d) => (d.id === delivery.id ? delivery : d)) });
    }
  };

  return (
    <Section title={t.webhooks}>
      <form className="inline-form" onSubmit={(e) => (e.preventDefault(), void load(endpointId.trim(), 1))}>
        <label htmlFor="endpoint-id">{t.endpointId}</label>
        <input id="endpoint-id" value={endpointId} onChange={(e) => setEndpointId(e.target.value)} required />
        <button type="submit" disabled={busy}>
          {t.lookUp}
        </button>
      </form>
      <ErrorBox error={error} />
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {shown && (
        <>
          <h3>{t.deliveries}</h3>
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
                    <span className="sr-only">{t.redeliver}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.data.map((d) => (
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
                      <button type="button" onClick={() => void redeliver(d.id)} disabled={busy} aria-label={`${t.redeliver} ${d.id}`}>
                        {t.redeliver}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={shown.page} pages={shown.pages} onPage={(page) => void load(shown.endpointId, page)} />
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
