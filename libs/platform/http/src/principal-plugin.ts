import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors';
import type { KeyObject } from 'node:crypto';
import {
  PRINCIPAL_HEADER,
  principalPublicKey,
  requestBinding,
  sameRequest,
  verifyPrincipal,
  type ApiKeyPrincipal,
  type Principal,
  type PrincipalBinding,
} from './principal';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /**
     * For an internal route that a service calls with the principal it received (charges asks the vault
     * for a token with the integrator's own principal): the public routes, as "METHOD /path", whose
     * principals this route accepts besides its own. Nothing else is delegated: a principal of any other
     * request is refused here as everywhere.
     */
    principalFrom?: readonly string[];
  }
}

export interface PrincipalPluginOptions {
  /** The gateway's public key (PRINCIPAL_PUBLIC_KEY): a PEM or a KeyObject, parsed once here. */
  publicKey: string | KeyObject;
  /** PRINCIPAL_PUBLIC_KEY_PREVIOUS during a rotation: principals signed with its private key are accepted too. */
  previousPublicKey?: string | KeyObject;
  /** Routes answered without a principal (health checks). Matched against the route's URL pattern. */
  publicRoutes?: string[];
  nowMs?: () => number;
}

function delegated(bound: PrincipalBinding, from: readonly string[] | undefined): boolean {
  return from !== undefined && from.includes(`${bound.method} ${bound.path}`);
}

/**
 * Refuses every request that does not carry a valid principal signed by the gateway for this very
 * request (method, path and query). Services behind the gateway register it first, so a request that
 * found its way around the gateway, or a principal replayed onto another route, is answered 401.
 */
export const principalPlugin = fp(
  async (app: FastifyInstance, options: PrincipalPluginOptions) => {
    const publicRoutes = new Set(options.publicRoutes ?? []);
    const nowMs = options.nowMs ?? Date.now;
    // Parsed once: a PEM per request would cost more than the signature check itself.
    const keys = [
      principalPublicKey(options.publicKey),
      ...(options.previousPublicKey === undefined
        ? []
        : [principalPublicKey(options.previousPublicKey, 'PRINCIPAL_PUBLIC_KEY_PREVIOUS')]),
    ];
    app.decorateRequest('principal', null);
    app.addHook('onRequest', async (request: FastifyRequest) => {
      if (publicRoutes.has(request.routeOptions.url ?? '')) return;
      const header = request.headers[PRINCIPAL_HEADER];
      const verified = verifyPrincipal(
        typeof header === 'string' ? header : undefined,
        keys,
        nowMs(),
      );
      if (verified === null) {
        throw new ApiError('principal_invalid', 'The request did not come through the gateway.');
      }
      if (
        !sameRequest(verified.request, requestBinding(request.method, request.url)) &&
        !delegated(verified.request, request.routeOptions.config.principalFrom)
      ) {
        throw new ApiError('principal_invalid', 'The principal was issued for another request.');
      }
      request.principal = verified.principal;
    });
  },
  { name: 'principal' },
);

/** The API key principal of a public route, with the permission it needs (checked again here). */
export function apiPrincipal(request: FastifyRequest, permission: string): ApiKeyPrincipal {
  const principal = request.principal;
  if (principal === null || principal.kind !== 'api_key') {
    throw new ApiError('principal_invalid', 'This route needs an API key.');
  }
  if (!principal.permissions.includes(permission)) {
    throw new ApiError('permission_denied', `The API key lacks the permission ${permission}.`);
  }
  return principal;
}

/** As apiPrincipal, for the routes that need a seller-scoped key. */
export function sellerPrincipal(
  request: FastifyRequest,
  permission: string,
): ApiKeyPrincipal & { sellerId: string } {
  const principal = apiPrincipal(request, permission);
  if (principal.sellerId === null) {
    throw new ApiError('seller_scope_required', 'This route needs a seller-scoped API key.');
  }
  return { ...principal, sellerId: principal.sellerId };
}

/** What a key sees: its tenant's rows in its environment, and only its seller's when it has one. */
export interface PrincipalScope<SellerId extends string | null = string | null> {
  tenantId: string;
  livemode: boolean;
  sellerId: SellerId;
}

/** The scope of a principal (a seller principal's scope has its seller). */
export function scopeOf<SellerId extends string | null>(principal: {
  tenantId: string;
  livemode: boolean;
  sellerId: SellerId;
}): PrincipalScope<SellerId> {
  return {
    tenantId: principal.tenantId,
    livemode: principal.livemode,
    sellerId: principal.sellerId,
  };
}

/** The scope of the API key principal of a public route, with the permission it needs (apiPrincipal). */
export function apiScope(request: FastifyRequest, permission: string): PrincipalScope {
  return scopeOf(apiPrincipal(request, permission));
}

export function requireOperator(request: FastifyRequest): void {
  if (request.principal?.kind !== 'operator') {
    throw new ApiError('principal_invalid', 'This route is for the operator API.');
  }
}
