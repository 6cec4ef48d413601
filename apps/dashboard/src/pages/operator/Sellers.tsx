import { useState, type FormEvent } from 'react';
import type { Admin, KycStatus, Seller } from '../../admin';
import { dateTime } from '../../format';
import { CreateButton, Field } from '../../form';
import { useAction, usePagedLoad } from '../../load';
import { buttonColumn, statusColumn, PagedTable } from '../../table';
import { Confirm, ErrorBox, Section, useLocale, useT } from '../../ui';

export function Sellers({ admin, tenantId }: { admin: Admin; tenantId: string }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [kyc, setKyc] = useState<KycStatus | ''>('');
  const [form, setForm] = useState({ name: '', document: '' });
  const [approving, setApproving] = useState<string | null>(null);
  const sellers = usePagedLoad(
    (page) => admin.sellers(tenantId, page, kyc === '' ? {} : { kyc_status: kyc }),
    [admin, tenantId, kyc],
  );

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (
      await act(() =>
        admin.createSeller(tenantId, {
          name: form.name,
          document: form.document.replace(/\D/g, ''),
        }),
      )
    ) {
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
        <Field
          label={t.name}
          value={form.name}
          onChange={(name) => setForm({ ...form, name })}
          required
        />
        <Field
          label={t.document}
          value={form.document}
          onChange={(document) => setForm({ ...form, document })}
          required
        />
        <CreateButton busy={busy} />
      </form>
      <div className="filters field">
        <label htmlFor="kyc-filter">{t.kycStatus}</label>
        <select
          id="kyc-filter"
          value={kyc}
          onChange={(e) => (setKyc(e.target.value as KycStatus | ''), sellers.setPage(1))}
        >
          <option value="">{t.all}</option>
          <option value="pending">pending</option>
          <option value="approved">approved</option>
          <option value="rejected">rejected</option>
        </select>
      </div>
      {approving !== null && (
        <Confirm
          question={t.approveConfirm(approving)}
          busy={busy}
          onConfirm={() => void approve()}
          onCancel={() => setApproving(null)}
        />
      )}
      <ErrorBox error={error ?? sellers.error} />
      <PagedTable
        list={sellers}
        empty={t.none}
        columns={[
          { header: t.name, cell: (s) => s.name },
          { header: t.sellerId, cell: (s) => <code>{s.id}</code> },
          { header: t.document, cell: (s) => s.document },
          statusColumn<Seller>(t.kycStatus, 'kyc', (s) => s.kyc_status),
          {
            header: t.plan,
            cell: (s) => (s.pricing_plan_id === null ? '—' : <code>{s.pricing_plan_id}</code>),
          },
          { header: t.created, cell: (s) => dateTime(s.created_at, locale) },
          buttonColumn<Seller>({
            label: t.approve,
            name: (s) => s.id,
            onClick: (s) => setApproving(s.id),
            disabled: busy,
            when: (s) => s.kyc_status !== 'approved',
          }),
        ]}
      />
    </Section>
  );
}
