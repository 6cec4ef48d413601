import type { FastifyRequest } from 'fastify';
import type { Db } from '@pgw/platform-db';
import { ApiError, PRINCIPAL_TTL_MS, type ApiKeyPrincipal } from '@pgw/platform-http';
import { findKeyForAuth, type KeyForAuth } from '../data/api-keys.repository';
import { kycStatusesOfTenant } from '../data/sellers.repository';
import { parseAuthorization, sha256Hex } from '@pgw/gateway-domain/api-key-secret';
import { KeyCache } from './key-cache';
import type { Permission } from './permissions';
import type { RateLimiter } from './rate-limiter';

/** What a public route asks of the key (api-v1 §5). */
export interface AccessRule {
  permission: Permission;
  /** The key must be scoped to a seller (tokenize, balance, history, every anticipation route). */
  sellerScope: boolean;
  /**
   * The key's seller, when it has one, must have KYC approved (tokenize, POST /charges: contract §4a).
   * Read from the sellers table at request time, never from the key cache: read-your-writes (§4b).
   */
  kyc: boolean;
}

export interface ApiKeyAuthOptions {
  db: Db;
  /**
   * SHA-256 of the secret → the key, loaded with `findKeyForAuth` (`keyCacheFor(db, …)`); unknown secrets are
   * kept apart, briefly, so that repeating one does not reach the database.
   */
  keys: KeyCache<KeyForAuth>;
  rateLimiter: RateLimiter;
  defaultRateLimitPerSecond: number;
  /** Failed authentications per client address (request.ip) and second; beyond it, 429 before any lookup. */
  failureLimiter: RateLimiter;
  failuresPerSecond: number;
}

/**
 * Public authentication, in the order of contract §2: who is calling (401), how often (429), and whether
 * the key may do this (403). The one code path of both forwarding modes.
 */
export class ApiKeyAuthenticator {
  constructor(private readonly options: ApiKeyAuthOptions) {}

  /**
   * The caller's principal for `rule`, or the contract's 401/403/429. `beforeReads` runs once the key is
   * known and allowed, before any database read this check makes (the seller's KYC): admission control
   * refuses there, so that shedding an overload costs no query.
   */
  async principalFor(
    request: FastifyRequest,
    rule: AccessRule,
    beforeReads: () => void = () => {},
  ): Promise<ApiKeyPrincipal> {
    const parsed = parseAuthorization(request.headers.authorization);
    if (parsed.kind === 'missing')
      throw new ApiError('api_key_missing', 'Send the API key in Authorization: Bearer sk_….');
    if (parsed.kind === 'malformed')
      throw new ApiError('api_key_invalid', 'The API key is not valid.');

    const key = await this.lookup(request.ip, sha256Hex(parsed.secret));
    // The environment is part of the hashed secret, so a stored key always agrees with its prefix;
    // the comparison is a second fence, and the prefix is what decides livemode.
    if (key === null || key.livemode !== parsed.livemode)
      throw this.failed(request.ip, new ApiError('api_key_invalid', 'The API key is not valid.'));
    if (key.revoked)
      throw this.failed(
        request.ip,
        new ApiError('api_key_revoked', 'The API key has been revoked.'),
      );

    this.options.rateLimiter.take(
      key.id,
      key.rateLimitPerSecond ?? this.options.defaultRateLimitPerSecond,
    );

    if (!key.permissions.includes(rule.permission)) {
      throw new ApiError(
        'permission_denied',
        `The API key lacks the permission ${rule.permission}.`,
      );
    }
    if (rule.sellerScope && key.sellerId === null) {
      throw new ApiError('seller_scope_required', 'This route needs a seller-scoped API key.');
    }
    beforeReads();
    if (rule.kyc && key.sellerId !== null) {
      const sellerId = key.sellerId;
      const statuses = await this.options.db.read((q) =>
        kycStatusesOfTenant(q, key.tenantId, [sellerId]),
      );
      if (statuses.get(sellerId) !== 'approved')
        throw new ApiError('seller_kyc_required', "The seller's KYC is not approved.");
    }
    return {
      kind: 'api_key',
      tenantId: key.tenantId,
      sellerId: key.sellerId,
      keyId: key.id,
      permissions: [...key.permissions],
      livemode: parsed.livemode,
      requestId: request.id,
      expiresAtMs: Date.now() + PRINCIPAL_TTL_MS,
    };
  }

  /**
   * 422 parameter_invalid on `split.<i>.recipient_seller_id` when a recipient is a seller of the caller's
   * tenant whose KYC is not approved (contract §4a), read now from the sellers table. A body the service
   * will refuse anyway, and a recipient that is no seller of this tenant, go on to the service and get its
   * answer: whether another tenant's seller exists is never told.
   */
  async assertSplitRecipientsApproved(principal: ApiKeyPrincipal, body: unknown): Promise<void> {
    const recipients = splitRecipients(body);
    const wellFormed = recipients.filter((id): id is string => id !== null);
    if (wellFormed.length === 0) return;
    const statuses = await this.options.db.read((q) =>
      kycStatusesOfTenant(q, principal.tenantId, wellFormed),
    );
    for (const [index, sellerId] of recipients.entries()) {
      const status = sellerId === null ? undefined : statuses.get(sellerId);
      if (status !== undefined && status !== 'approved') {
        const param = `split.${index}.recipient_seller_id`;
        throw new ApiError(
          'parameter_invalid',
          `${param}: the recipient's KYC is not approved`,
          param,
        );
      }
    }
  }

  /**
   * The key of a well-formed secret: from the cache, else from the database. An address that has spent
   * its budget of failed authentications gets 429 instead of a lookup (a cached key is still served).
   */
  private async lookup(clientIp: string, secretSha256: string): Promise<KeyForAuth | null> {
    const cached = this.options.keys.get(secretSha256);
    if (cached !== undefined) return cached;
    this.options.failureLimiter.check(clientIp, this.options.failuresPerSecond);
    return this.options.keys.load(secretSha256);
  }

  /** Counts a failed authentication against the client's address and returns its 401 (or the 429 past the budget). */
  private failed(clientIp: string, error: ApiError): ApiError {
    try {
      this.options.failureLimiter.take(clientIp, this.options.failuresPerSecond);
    } catch (refusal) {
      if (refusal instanceof ApiError) return refusal;
      throw refusal;
    }
    return error;
  }

  /** Drops this replica's cached copy at once (revocation); other replicas follow within the cache's TTL. */
  forget(secretSha256: string): void {
    this.options.keys.delete(secretSha256);
  }
}

/** The key cache of `db`'s API keys: concurrent misses for one secret make one lookup. */
export function keyCacheFor(
  db: Db,
  bounds: { entriesMax: number; unknownEntriesMax: number; ttlMs: number },
): KeyCache<KeyForAuth> {
  return new KeyCache<KeyForAuth>({
    ...bounds,
    load: (secretSha256) => db.read((q) => findKeyForAuth(q, secretSha256)),
  });
}

/** api-v1 POST /charges: at most 10 split items, each recipient a `seller_` id of this shape. */
const SPLIT_ITEMS_MAX = 10;
const RECIPIENT_ID = /^seller_[A-Za-z0-9]{1,248}$/;

/** The recipient of each split item (null where it is not a seller id), or none when `split` is not a list api-v1 allows. */
function splitRecipients(body: unknown): Array<string | null> {
  if (typeof body !== 'object' || body === null) return [];
  const split: unknown = (body as { split?: unknown }).split;
  if (!Array.isArray(split) || split.length > SPLIT_ITEMS_MAX) return [];
  return split.map((item: unknown) => {
    const id: unknown =
      typeof item === 'object' && item !== null
        ? (item as { recipient_seller_id?: unknown }).recipient_seller_id
        : undefined;
    return typeof id === 'string' && RECIPIENT_ID.test(id) ? id : null;
  });
}
