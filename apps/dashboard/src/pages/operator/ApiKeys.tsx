import { useState, type FormEvent } from 'react';
import { PERMISSIONS } from '@pgw/sdk';
import type { Admin, ApiKey } from '../../admin';
import { dateTime } from '../../format';
import { CreateButton, NamedOptions } from '../../form';
import { useAction, usePagedLoad } from '../../load';
import { buttonColumn, statusColumn, PagedTable } from '../../table';
import { Confirm, ErrorBox, Section, useLocale, useT } from '../../ui';
import { usePickerSellers } from './hooks';

export function ApiKeys({ admin, tenantId }: { admin: Admin; tenantId: string }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [form, setForm] = useState({
    sellerId: '',
    environment: 'test' as 'test' | 'live',
    permissions: [...PERMISSIONS] as string[],
  });
  const [secret, setSecret] = useState<{ id: string; value: string } | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const keys = usePagedLoad((page) => admin.apiKeys(tenantId, page), [admin, tenantId]);
  const sellers = usePickerSellers(admin, tenantId);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const key = await act(() =>
      admin.createApiKey({
        tenant_id: tenantId,
        seller_id: form.sellerId === '' ? null : form.sellerId,
        environment: form.environment,
        permissions: form.permissions,
      }),
    );
    if (key) {
      // The secret is shown this once and kept nowhere: the list, read again, never has it.
      setSecret(key.secret ? { id: key.id, value: key.secret } : null);
      keys.first();
    }
  };
  const revoke = async () => {
    if (revoking === null) return;
    await act(() => admin.revokeApiKey(revoking));
    setRevoking(null);
    keys.reload();
  };
  const toggle = (permission: string) =>
    setForm((f) => ({
      ...f,
      permissions: f.permissions.includes(permission)
        ? f.permissions.filter((p) => p !== permission)
        : [...f.permissions, permission],
    }));
  const sellerName = (id: string | null) =>
    id === null ? t.tenantWide : (sellers.value?.data.find((s) => s.id === id)?.name ?? id);

  return (
    <Section title={t.apiKeys}>
      <form className="grid-form" onSubmit={(e) => void create(e)}>
        {/* Labelled by `for`, not by wrapping: a wrapped select's name would take in its chosen option. */}
        <div className="field">
          <label htmlFor="key-seller">{t.seller}</label>
          <select
            id="key-seller"
            value={form.sellerId}
            onChange={(e) => setForm({ ...form, sellerId: e.target.value })}
          >
            <option value="">{t.tenantWide}</option>
            <NamedOptions items={sellers.value?.data} />
          </select>
        </div>
        <label>
          {t.environment}
          <select
            value={form.environment}
            onChange={(e) => setForm({ ...form, environment: e.target.value as 'test' | 'live' })}
          >
            <option value="test">test</option>
            <option value="live">live</option>
          </select>
        </label>
        <fieldset>
          <legend>{t.permissions}</legend>
          {PERMISSIONS.map((p) => (
            <label key={p} className="check">
              <input
                type="checkbox"
                checked={form.permissions.includes(p)}
                onChange={() => toggle(p)}
              />{' '}
              {p}
            </label>
          ))}
        </fieldset>
        <CreateButton busy={busy} />
      </form>
      {secret && (
        <div className="secret" role="status">
          <p>{t.secretOnce}</p>
          <code data-testid="secret-key-id">{secret.id}</code>:{' '}
          <code data-testid="secret">{secret.value}</code>
        </div>
      )}
      {revoking !== null && (
        <Confirm
          question={t.revokeConfirm(revoking)}
          busy={busy}
          onConfirm={() => void revoke()}
          onCancel={() => setRevoking(null)}
        />
      )}
      <ErrorBox error={error ?? keys.error ?? sellers.error} />
      <PagedTable
        list={keys}
        empty={t.none}
        columns={[
          { header: t.id, cell: (k) => <code>{k.id}</code> },
          {
            header: t.secretEnd,
            cell: (k) => (
              <code>
                {k.secret_last4 === null ? '—' : `sk_${k.environment}_…${k.secret_last4}`}
              </code>
            ),
          },
          { header: t.environment, cell: (k) => k.environment },
          { header: t.seller, cell: (k) => sellerName(k.seller_id) },
          {
            header: t.permissions,
            cellProps: (k) => ({ title: k.permissions.join(', ') }),
            cell: (k) => k.permissions.length,
          },
          { header: t.created, cell: (k) => dateTime(k.created_at, locale) },
          statusColumn<ApiKey>(t.status, 'key', (k) => k.status),
          buttonColumn<ApiKey>({
            label: t.revoke,
            name: (k) => k.id,
            onClick: (k) => setRevoking(k.id),
            disabled: busy,
            when: (k) => k.status === 'active',
          }),
        ]}
      />
    </Section>
  );
}
