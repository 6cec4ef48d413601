import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { isId } from '@pgw/domain';
import { apiScope, ListEnvelope, listPage, notFound, pagingOf, type App } from '@pgw/platform-http';
import type { Db, Tx } from '@pgw/platform-db';
import type { Scope } from '../data/receivables.repository';
import { IdParams } from './schemas';

type Q = Knex | Tx;

/** A resource the API lists and reads in the key's scope, as receivables and settlements are. */
export interface ScopedResource<Query extends TObject, Row> {
  /** The list's path; one of them is at `${path}/:id`. */
  path: string;
  permission: string;
  /** Its ids' prefix and its name in a 404 (an id of another prefix is none of them). */
  idPrefix: Parameters<typeof isId>[0];
  name: string;
  schemas: { query: Query; item: TSchema; body: TSchema };
  /** One page of the rows in `scope` that the list's `query` filters. */
  list: (
    q: Q,
    scope: Scope,
    query: Static<Query>,
    page: number,
    limit: number,
  ) => Promise<{ data: Row[]; total: number }>;
  get: (q: Q, scope: Scope, id: string) => Promise<Row | undefined>;
  resource: (row: Row) => object;
}

/**
 * GET `path` and `path/:id`. Tenant-scoped, and seller-scoped when the key has a seller; every query
 * filters on the principal's tenant and environment, so a foreign id is a 404.
 */
export function scopedReadRoutes<Query extends TObject, Row>(
  app: App,
  db: Db,
  r: ScopedResource<Query, Row>,
): void {
  app.get(
    r.path,
    { schema: { querystring: r.schemas.query, response: { 200: ListEnvelope(r.schemas.item) } } },
    async (request) => {
      const scope = apiScope(request, r.permission);
      const query = request.query as Static<Query> & { page?: number; limit?: number };
      const { page, limit } = pagingOf(query);
      const { data, total } = await db.read((q) => r.list(q, scope, query, page, limit));
      return { ...listPage(data.map(r.resource), page, limit, total), request_id: request.id };
    },
  );

  app.get(
    `${r.path}/:id`,
    { schema: { params: IdParams, response: { 200: r.schemas.body } } },
    async (request) => {
      const scope = apiScope(request, r.permission);
      const { id } = request.params;
      if (!isId(r.idPrefix, id)) throw notFound(r.name);
      const row = await db.read((q) => r.get(q, scope, id));
      if (row === undefined) throw notFound(r.name);
      return { ...r.resource(row), request_id: request.id };
    },
  );
}
