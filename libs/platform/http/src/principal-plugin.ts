import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors';
import { PRINCIPAL_HEADER, verifyPrincipal, type ApiKeyPrincipal, type Principal } from './principal';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export interface PrincipalPluginOptions {
  /** The gateway's PRINCIPAL_SECRET. */
  secret: string;
  /** PRINCIPAL_SECRET_PREVIOUS during a rotation: principals signed with it are accepted too. */
  previousSecret?: string;
  /** Routes answered without a principal (health checks). Matched against the route's URL pattern. */
  publicRoutes?: string[];
  nowMs?: () => number;
}

/**
 * Refuses every request that does not carry a valid principal signed by the gateway. Services behind the
 * gateway register it first, so a request that found its way around the gateway is answered 401.
 */
export const principalPlugin = fp(
  async (app: FastifyInstance, options: PrincipalPluginOptions) => {
    const publicRoutes = new Set(options.publicRoutes ?? []);
    const nowMs = options.nowMs ?? Date.now;
    const secrets = options.previousSecret === undefined ? [options.secret] : [options.secret, options.previousSecret];
    app.decorateRequest('principal', null);
    app.addHook('onRequest', async (request: FastifyRequest) => {
      if (publicRoutes.has(request.routeOptions.url ?? '')) return;
      const header = request.headers[PRINCIPAL_HEADER];
      const principal = verifyPrincipal(typeof header === 'string' ? header : undefined, secrets, nowMs());
      if (principal === null) {
        throw new ApiError('principal_invalid', 'The request did not come through the gateway.');
      }
      request.principal = principal;
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
export function sellerPrincipal(request: FastifyRequest, permission: string): ApiKeyPrincipal & { sellerId: string } {
  const principal = apiPrincipal(request, permission);
  if (principal.sellerId === null) {
    throw new ApiError('seller_scope_required', 'This route needs a seller-scoped API key.');
  }
  return { ...principal, sellerId: principal.sellerId };
}

export function requireOperator(request: FastifyRequest): void {
  if (request.principal?.kind !== 'operator') {
    throw new ApiError('principal_invalid', 'This route is for the operator API.');
  }
}
