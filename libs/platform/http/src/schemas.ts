import { Type, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * A union of `T`'s literals. A list built at run time (Object.values) is an array, not a tuple, and
 * StaticDecode walks a union as a tuple: typed as one literal of the whole union, not never.
 */
type Literals<T extends readonly string[]> = number extends T['length']
  ? TUnion<[TLiteral<T[number]>]>
  : TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }>;

/**
 * One of `values`: a union of their literals, typed as such, so that a typed route's query or reply
 * (Static, StaticDecode) reads the union of the strings, not never.
 */
export const literals = <const T extends readonly string[]>(values: T): Literals<T> =>
  Type.Union(values.map((v) => Type.Literal(v))) as unknown as Literals<T>;

export const RequestIdSchema = Type.String({ pattern: '^req_[A-Za-z0-9_\\-]+$' });

const PAGE_DEFAULT = 1;
const LIMIT_DEFAULT = 50;

export const PagingQuery = {
  // Bounded so that page × limit stays a sane OFFSET (1e23 is an integer too, and PostgreSQL's bigint is not).
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: PAGE_DEFAULT })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: LIMIT_DEFAULT })),
};

/**
 * The page and limit a list's query asks for. Its schema types them optional, though validation fills in
 * PagingQuery's defaults; this gives the same defaults where nothing validated (an inject without them).
 */
export function pagingOf(query: { page?: number; limit?: number }): {
  page: number;
  limit: number;
} {
  return { page: query.page ?? PAGE_DEFAULT, limit: query.limit ?? LIMIT_DEFAULT };
}

export const ListEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    page: Type.Integer({ minimum: 1 }),
    limit: Type.Integer({ minimum: 1 }),
    total: Type.Integer({ minimum: 0 }),
    total_pages: Type.Integer({ minimum: 0 }),
    request_id: RequestIdSchema,
  });

export const ErrorBodySchema = Type.Object({
  error: Type.Object({
    type: Type.String(),
    code: Type.String(),
    message: Type.String(),
    param: Nullable(Type.String()),
  }),
  request_id: RequestIdSchema,
});

export interface ListPage<T> {
  object: 'list';
  data: T[];
  page: number;
  limit: number;
  total: number;
  total_pages: number;
}

export function listPage<T>(data: T[], page: number, limit: number, total: number): ListPage<T> {
  return { object: 'list', data, page, limit, total, total_pages: Math.ceil(total / limit) };
}
