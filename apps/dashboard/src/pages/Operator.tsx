import { useState } from 'react';
import type { Admin } from '../admin';
import { NamedOptions } from '../form';
import { useLoad } from '../load';
import { ErrorBox, useT } from '../ui';
import { ApiKeys } from './operator/ApiKeys';
import { DeadLetters } from './operator/DeadLetters';
import { Jobs } from './operator/Jobs';
import { PricingPlans } from './operator/PricingPlans';
import { Sellers } from './operator/Sellers';
import { Tenants } from './operator/Tenants';
import { Webhooks } from './operator/Webhooks';

// The operator API (contract §5): tenants are listed, and a tenant's sellers, keys, pricing plans and
// webhook endpoints under it, so the operator picks rather than types ids. Every list is read again after
// a change: what the page shows is what the API answers, never what the page assumes it did. Each page is
// a file of its own in operator/.

/** The pages that show one tenant's things, and need one chosen. */
const TENANT_PAGES = ['sellers', 'api-keys', 'pricing-plans', 'webhooks'];

export function Operator({ admin, page }: { admin: Admin; page: string }) {
  const t = useT();
  // Kept while the operator moves between pages; a new sign-in starts with none chosen.
  const [tenantId, setTenantId] = useState<string | null>(null);
  return (
    <>
      <h1>{t.operatorMode}</h1>
      {page === 'tenants' && (
        <Tenants
          admin={admin}
          onOpen={(id, target) => (setTenantId(id), (window.location.hash = `#/${target}`))}
        />
      )}
      {TENANT_PAGES.includes(page) && (
        <TenantPicker admin={admin} tenantId={tenantId} onChange={setTenantId} />
      )}
      {tenantId !== null && page === 'sellers' && (
        <Sellers key={tenantId} admin={admin} tenantId={tenantId} />
      )}
      {tenantId !== null && page === 'api-keys' && (
        <ApiKeys key={tenantId} admin={admin} tenantId={tenantId} />
      )}
      {tenantId !== null && page === 'pricing-plans' && (
        <PricingPlans key={tenantId} admin={admin} tenantId={tenantId} />
      )}
      {tenantId !== null && page === 'webhooks' && (
        <Webhooks key={tenantId} admin={admin} tenantId={tenantId} />
      )}
      {page === 'jobs' && <Jobs admin={admin} />}
      {page === 'dead-letters' && <DeadLetters admin={admin} />}
    </>
  );
}

// The picker offers the newest tenants, as many as one page of the API holds; an older one is opened
// from the Tenants page, which pages through all of them.
const PICKER_TENANTS_MAX = 100;

function TenantPicker({
  admin,
  tenantId,
  onChange,
}: {
  admin: Admin;
  tenantId: string | null;
  onChange: (id: string | null) => void;
}) {
  const t = useT();
  const tenants = useLoad(() => admin.tenants(1, PICKER_TENANTS_MAX), [admin]);
  const known = tenants.value?.data ?? [];
  return (
    <>
      {/* Labelled by `for`, not by wrapping: a wrapped select's name would take in its chosen option. */}
      <div className="filters field">
        <label htmlFor="tenant-picker">{t.tenant}</label>
        <select
          id="tenant-picker"
          value={tenantId ?? ''}
          onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)}
        >
          <option value="">—</option>
          {tenantId !== null && !known.some((tenant) => tenant.id === tenantId) && (
            <option value={tenantId}>{tenantId}</option>
          )}
          <NamedOptions items={known} />
        </select>
      </div>
      {tenantId === null && <p className="help">{t.chooseTenant}</p>}
      <ErrorBox error={tenants.error} />
    </>
  );
}
