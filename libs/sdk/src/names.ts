import {
  CHARGE_STATUSES as STATUSES,
  PAYMENT_METHODS as METHODS,
  PERMISSIONS as NAMES,
} from '@pgw/domain';
import type { ChargeListParams } from './types';

// The API's fixed lists of names, taken from the domain code that defines them (and that the services
// check against), so that each is written once; the types hold each to the OpenAPI document's enum.

/** The permissions an API key may carry (api-v1 §5): a key is issued with a subset. */
export const PERMISSIONS = NAMES;

export type Permission = (typeof PERMISSIONS)[number];

/** A charge's statuses (charge-states.md), in the order of its life. */
export const CHARGE_STATUSES: readonly NonNullable<ChargeListParams['status']>[] = STATUSES;

/** The payment methods a charge is made with. */
export const PAYMENT_METHODS: readonly NonNullable<ChargeListParams['payment_method']>[] = METHODS;
