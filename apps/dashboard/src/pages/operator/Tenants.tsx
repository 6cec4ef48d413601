import { useState, type FormEvent } from 'react';
import type { Admin } from '../../admin';
import { dateTime } from '../../format';
import { CreateButton, TextField } from '../../form';
import { useAction, usePagedLoad } from '../../load';
import { PagedTable } from '../../table';
import { ErrorBox, Section, useLocale, useT } from '../../ui';

export function Tenants({
  admin,
  onOpen,
}: {
  admin: Admin;
  onOpen: (tenantId: string, page: string) => void;
}) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [name, setName] = useState('');
  const tenants = usePagedLoad((page) => admin.tenants(page), [admin]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (await act(() => admin.createTenant(name))) {
      setName('');
      // The newest tenant is on the first page.
      tenants.first();
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
        <TextField id="tenant-name" label={t.name} value={name} onChange={setName} required />
        <CreateButton busy={busy} />
      </form>
      <ErrorBox error={error ?? tenants.error} />
      <PagedTable
        list={tenants}
        empty={t.none}
        columns={[
          { header: t.name, cell: (tenant) => tenant.name },
          { header: t.id, cell: (tenant) => <code>{tenant.id}</code> },
          { header: t.created, cell: (tenant) => dateTime(tenant.created_at, locale) },
          {
            header: <span className="sr-only">{t.lookUp}</span>,
            cell: (tenant) =>
              targets.map(([target, label], index) => (
                <span key={target}>
                  {index > 0 && ' · '}
                  <button
                    type="button"
                    className="link"
                    onClick={() => onOpen(tenant.id, target)}
                    aria-label={`${label}: ${tenant.name} ${tenant.id}`}
                  >
                    {label}
                  </button>
                </span>
              )),
          },
        ]}
      />
    </Section>
  );
}
