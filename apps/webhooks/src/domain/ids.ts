import { randomString } from '@pgw/domain';

// Ids and secrets this service mints. @pgw/domain's newId knows only the api-v1 prefixes; delivery ids
// (whd_) and rotated secrets (whsec_, as the gateway makes them) are this service's own, from the same
// unbiased base62 generator (randomString).

export const DELIVERY_ID_PATTERN = /^whd_[A-Za-z0-9]{1,64}$/;
export const ENDPOINT_ID_PATTERN = /^we_[A-Za-z0-9]{1,64}$/;

export const newDeliveryId = (): string => `whd_${randomString(24)}`;
export const newEndpointSecret = (): string => `whsec_${randomString(32)}`;
