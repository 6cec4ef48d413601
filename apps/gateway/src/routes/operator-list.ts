import { Type, type TProperties, type TSchema } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { isId } from '@pgw/domain';
import type { Tx } from '@pgw/platform-db';
import {
  ListEnvelope,
  listPage,
  notFound,
  PagingQuery,
  pagingOf,
  type ListPage,
} from '@pgw/platform-http';
import type { Page, Paging } from '../data/queries';
import { findTenant } from '../data/tenants.repository';
import { TenantIdParams, type RouteContext } from './route-context';

// The operator API's lists (GET /admin/v1/tenants and a tenant's sellers, plans, keys, endpoints) are one
// endpoint in five places: the paging query, the tenant's 404, the list envelope. Each route gives its
// schema and handler from here, at its own `app.get`, so that the type provider types its request.

/** The paging query as its schema types it: optional, though validation fills in PagingQuery's defaults. */
interface PagingInput {
  page?: number;
  limit?: number;
}

interface ListRequest<Q> {
  id: string;
  query: Q & PagingInput;
}

type ListAnswer<T> = ListPage<T> & { request_id: string };

function listAnswer<R, T>(
  found: Page<R>,
  toItem: (row: R) => T,
  { page, limit }: Paging,
  requestId: string,
): ListAnswer<T> {
  return { ...listPage(found.data.map(toItem), page, limit, found.total), request_id: requestId };
}

/** A list's schema: the paging query (with the list's own `filters`) and a page of `item`s. */
export function listSchema<I extends TSchema, F extends TProperties = Record<never, never>>(
  item: I,
  filters: F = {} as F,
) {
  return {
    schema: {
      querystring: Type.Object({ ...PagingQuery, ...filters }),
      response: { 200: ListEnvelope(item) },
    },
  };
}

/** A tenant's list: the list's schema under /tenants/:tenant_id. */
export function tenantListSchema<I extends TSchema, F extends TProperties = Record<never, never>>(
  item: I,
  filters: F = {} as F,
) {
  return { schema: { params: TenantIdParams, ...listSchema(item, filters).schema } };
}

/** The handler of a list that is not a tenant's: one page `read` in one read, each row shaped by `toItem`. */
export function operatorList<R, T>(
  ctx: RouteContext,
  read: (q: Knex | Tx, paging: Paging) => Promise<Page<R>>,
  toItem: (row: R) => T,
) {
  return async (request: ListRequest<unknown>): Promise<ListAnswer<T>> => {
    const paging = pagingOf(request.query);
    const found = await ctx.db.read((q) => read(q, paging));
    return listAnswer(found, toItem, paging, request.id);
  };
}

/**
 * The handler of a tenant's list: one page `read` (given the query, for the list's filters) in the same
 * read as the tenant, each row shaped by `toItem`. A malformed or unknown tenant id is a 404 (contract §2).
 */
export function tenantList<Q, R, T>(
  ctx: RouteContext,
  read: (q: Knex | Tx, tenantId: string, paging: Paging, query: Q) => Promise<Page<R>>,
  toItem: (row: R) => T,
) {
  return async (
    request: ListRequest<Q> & { params: { tenant_id: string } },
  ): Promise<ListAnswer<T>> => {
    const { tenant_id: tenantId } = request.params;
    const paging = pagingOf(request.query);
    if (!isId('ten_', tenantId)) throw notFound('tenant');
    const found = await ctx.db.read(async (q) =>
      (await findTenant(q, tenantId)) === null ? null : read(q, tenantId, paging, request.query),
    );
    if (found === null) throw notFound('tenant');
    return listAnswer(found, toItem, paging, request.id);
  };
}
