import { useState, type FormEvent } from 'react';
import type { Admin, PricingPlan } from '../../admin';
import { dateTime } from '../../format';
import { CreateButton, Field, NamedOptions, type FieldProps } from '../../form';
import { useAction, usePagedLoad } from '../../load';
import { PagedTable } from '../../table';
import { ErrorBox, Notice, Section, useLocale, useT } from '../../ui';
import { usePickerSellers } from './hooks';

/** A plan's fields as its form holds them: numbers as typed. */
interface PlanDraft {
  name: string;
  feeBpsPerMonth: string;
  settlementDelayDays: string;
  isDefault: boolean;
}

const EMPTY_PLAN: PlanDraft = {
  name: '',
  feeBpsPerMonth: '',
  settlementDelayDays: '',
  isDefault: false,
};

const planBody = (draft: PlanDraft) => ({
  name: draft.name,
  fee_bps_per_month: Number(draft.feeBpsPerMonth),
  settlement_delay_days: Number(draft.settlementDelayDays),
  default: draft.isDefault,
});

/** A required whole number, zero or more (a plan's fee in bps, its settlement delay in days). */
function WholeNumberField({ label, value, onChange }: FieldProps) {
  return (
    <Field
      label={label}
      type="number"
      min={0}
      step={1}
      inputMode="numeric"
      value={value}
      onChange={onChange}
      required
    />
  );
}

/** The fields of a plan, the same when it is made and when it is edited. */
function PlanFields({
  draft,
  onChange,
}: {
  draft: PlanDraft;
  onChange: (change: Partial<PlanDraft>) => void;
}) {
  const t = useT();
  return (
    <>
      <Field label={t.name} value={draft.name} onChange={(name) => onChange({ name })} required />
      <WholeNumberField
        label={t.feeBpsPerMonth}
        value={draft.feeBpsPerMonth}
        onChange={(feeBpsPerMonth) => onChange({ feeBpsPerMonth })}
      />
      <WholeNumberField
        label={t.settlementDelayDays}
        value={draft.settlementDelayDays}
        onChange={(settlementDelayDays) => onChange({ settlementDelayDays })}
      />
      <label className="check">
        <input
          type="checkbox"
          checked={draft.isDefault}
          onChange={(e) => onChange({ isDefault: e.target.checked })}
        />{' '}
        {t.makeDefault}
      </label>
    </>
  );
}

export function PricingPlans({ admin, tenantId }: { admin: Admin; tenantId: string }) {
  const t = useT();
  const locale = useLocale();
  const { busy, error, act } = useAction();
  const [form, setForm] = useState<PlanDraft>(EMPTY_PLAN);
  const [editing, setEditing] = useState<(PlanDraft & { id: string }) | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const plans = usePagedLoad((page) => admin.pricingPlans(tenantId, page), [admin, tenantId]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (editing === null) return;
    if (await act(() => admin.updatePricingPlan(editing.id, planBody(editing)))) {
      setEditing(null);
      setNotice(t.saved);
      plans.reload();
    }
  };

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (await act(() => admin.createPricingPlan(tenantId, planBody(form)))) {
      setForm(EMPTY_PLAN);
      plans.first();
    }
  };

  return (
    <Section title={t.pricingPlans}>
      <form className="grid-form" onSubmit={(e) => void create(e)}>
        <PlanFields draft={form} onChange={(change) => setForm({ ...form, ...change })} />
        <CreateButton busy={busy} />
      </form>
      {editing !== null && (
        <form
          className="grid-form confirm"
          aria-label={t.editPlan(editing.name)}
          onSubmit={(e) => void save(e)}
          onKeyDown={(e) => e.key === 'Escape' && setEditing(null)}
        >
          <PlanFields
            draft={editing}
            onChange={(change) => setEditing({ ...editing, ...change })}
          />
          <button type="submit" className="primary" disabled={busy}>
            {t.save}
          </button>
          <button type="button" onClick={() => setEditing(null)} disabled={busy}>
            {t.cancel}
          </button>
        </form>
      )}
      <Notice text={notice} />
      <ErrorBox error={error ?? plans.error} />
      {/* The box takes focus, so that a keyboard can scroll it on a phone. */}
      <PagedTable
        list={plans}
        empty={t.none}
        label={t.pricingPlans}
        rowTestId={(plan) => `plan-${plan.id}`}
        columns={[
          { header: t.name, cell: (plan) => plan.name },
          { header: t.id, cell: (plan) => <code>{plan.id}</code> },
          { header: t.feeBpsPerMonth, num: true, cell: (plan) => plan.fee_bps_per_month },
          { header: t.settlementDelayDays, num: true, cell: (plan) => plan.settlement_delay_days },
          {
            header: t.mdrBps,
            cell: (plan) =>
              [
                plan.mdr_bps.credit_card,
                plan.mdr_bps.debit_card,
                plan.mdr_bps.pix,
                plan.mdr_bps.boleto,
              ].join(' · '),
          },
          { header: t.isDefault, cell: (plan) => (plan.default ? t.yes : t.no) },
          { header: t.created, cell: (plan) => dateTime(plan.created_at, locale) },
          {
            header: <span className="sr-only">{t.edit}</span>,
            cell: (plan) => (
              <button
                type="button"
                aria-label={t.editPlan(plan.name)}
                disabled={busy}
                onClick={() => (
                  setNotice(null),
                  setEditing({
                    id: plan.id,
                    name: plan.name,
                    feeBpsPerMonth: String(plan.fee_bps_per_month),
                    settlementDelayDays: String(plan.settlement_delay_days),
                    isDefault: plan.default,
                  })
                )}
              >
                {t.edit}
              </button>
            ),
          },
        ]}
      />
      <AssignPlan admin={admin} tenantId={tenantId} plans={plans.value?.data ?? []} />
    </Section>
  );
}

/**
 * A seller's own plan (contract §5: PATCH /admin/v1/sellers/{id} with pricing_plan_id), over the tenant's
 * default; "none" clears it. The seller's plan is read back from the API's answer, not assumed.
 */
function AssignPlan({
  admin,
  tenantId,
  plans,
}: {
  admin: Admin;
  tenantId: string;
  plans: readonly PricingPlan[];
}) {
  const t = useT();
  const { busy, error, act } = useAction();
  const sellers = usePickerSellers(admin, tenantId);
  const [sellerId, setSellerId] = useState('');
  const [planId, setPlanId] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const current = sellers.value?.data.find((s) => s.id === sellerId);

  const assign = async (event: FormEvent) => {
    event.preventDefault();
    const seller = await act(() =>
      admin.updateSeller(sellerId, { pricing_plan_id: planId === '' ? null : planId }),
    );
    if (seller) {
      setNotice(t.planAssigned(seller.name, seller.pricing_plan_id ?? t.noPlan));
      sellers.reload();
    }
  };

  return (
    <>
      <h3>{t.assignPlan}</h3>
      <form className="grid-form" onSubmit={(e) => void assign(e)}>
        <div className="field">
          <label htmlFor="assign-seller">{t.seller}</label>
          <select
            id="assign-seller"
            value={sellerId}
            onChange={(e) => (setSellerId(e.target.value), setNotice(null))}
            required
          >
            <option value="" disabled>
              —
            </option>
            <NamedOptions items={sellers.value?.data} />
          </select>
        </div>
        <div className="field">
          <label htmlFor="assign-plan">{t.plan}</label>
          <select id="assign-plan" value={planId} onChange={(e) => setPlanId(e.target.value)}>
            <option value="">{t.noPlan}</option>
            <NamedOptions items={plans} />
          </select>
        </div>
        <button type="submit" disabled={busy || sellerId === ''}>
          {t.assign}
        </button>
      </form>
      {current && (
        <p className="help" data-testid="seller-plan">
          {t.plan}: {current.pricing_plan_id ?? t.noPlan}
        </p>
      )}
      <Notice text={notice} />
      <ErrorBox error={error ?? sellers.error} />
    </>
  );
}
