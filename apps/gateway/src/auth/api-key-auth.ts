import type { FastifyRequest } from 'fastify';
import type { Db } from '@pgw/platform-db';
import { ApiError, PRINCIPAL_TTL_MS, type ApiKeyPrincipal } from '@pgw/platform-http';
import { findKeyForAuth, type KeyForAuth } from '../data/api-keys.repository';
import { parseAuthorization, sha256Hex } from './api-key-secret';
import type { TtlLruCache } from './key-cache';
import type { Permission } from './permissions';
import type { RateLimiter } from './rate-limiter';

/** What a public route asks of the key (api-v1 §5). */
export interface AccessRule {
  permission: Permission;
  /** The key must be scoped to a seller (tokenize, balance, history, every anticipation route). */
  sellerScope: boolean;
  /** The key's seller must have KYC approved (tokenize). */
  kyc: boolean;
}

export interface ApiKeyAuthOptions {
  db: Db;
  /** SHA-256 of the secret → the key, or null for no such key. */
  cache: TtlLruCache<string, KeyForAuth | null>;
  rateLimiter: RateLimiter;
  defaultRateLimitPerSecond: number;
}

/**
 * Public authentication, in the order of contract §2: who is calling (401), how often (429), and whether
 * the key may do this (403). The one code path of both forwarding modes.
 */
export class ApiKeyAuthenticator {
  constructor(private readonly options: ApiKeyAuthOptions) {}

  async principalFor(request: FastifyRequest, rule: AccessRule): Promise<ApiKeyPrincipal> {
    const parsed = parseAuthorization(request.headers.authorization);
    if (parsed.kind === 'missing') throw new ApiError('api_key_missing', 'Send the API key in Authorization: Bearer sk_….');
    if (parsed.kind === 'malformed') throw new ApiError('api_key_invalid', 'The API key is not valid.');

    const secretSha256 = sha256Hex(parsed.secret);
    const key = await this.options.cache.getOrLoad(secretSha256, () => this.options.db.read((q) => findKeyForAuth(q, secretSha256)));
    // The environment is part of the hashed secret, so a stored key always agrees with its prefix;
    // the comparison is a second fence, and the prefix is what decides livemode.
    if (key === null || key.livemode !== parsed.livemode) throw new ApiError('api_key_invalid', 'The API key is not valid.');
    if (key.revoked) throw new ApiError('api_key_revoked', 'The API key has been revoked.');

    this.options.rateLimiter.take(key.id, key.rateLimitPerSecond ?? this.options.defaultRateLimitPerSecond);

    if (!key.permissions.includes(rule.permission)) {
      throw new ApiError('permission_denied', `The API key lacks the permission ${rule.permission}.`);
    }
    if (rule.sellerScope && key.sellerId === null) {
      throw new ApiError('seller_scope_required', 'This route needs a seller-scoped API key.');
    }
    if (rule.kyc && key.sellerKycStatus !== 'approved') {
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

  /** Drops this replica's cached copy at once (revocation); other replicas follow within the cache's TTL. */
  forget(secretSha256: string): void {
    this.options.cache.delete(secretSha256);
  }
}
