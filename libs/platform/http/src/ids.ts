import { newId } from '@pgw/domain';

// Request ids are `req_` + 24 base62 characters (@pgw/domain's newId): ≈143 bits, unguessable and url-safe.
export function newRequestId(): string {
  return newId('req_');
}

export const REQUEST_ID_PATTERN = /^req_[A-Za-z0-9_-]{1,64}$/;
