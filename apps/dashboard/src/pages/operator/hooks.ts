import type { Admin } from '../../admin';
import { useLoad } from '../../load';

// A seller picker (a new key's, a plan's assignment) offers this many of the tenant's sellers, newest first.
const PICKER_SELLERS_MAX = 100;

/** The tenant's newest sellers, for a picker. */
export function usePickerSellers(admin: Admin, tenantId: string) {
  return useLoad(() => admin.sellers(tenantId, 1, {}, PICKER_SELLERS_MAX), [admin, tenantId]);
}
