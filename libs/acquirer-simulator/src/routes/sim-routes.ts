import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';
import type { AcquirerRejectionCode } from '@pgw/acquirer';
import { notFoundReply, reject, sendCreated, type Refusals } from '../http';
import type { Created } from '../operations/created';

// Every simulator route is one of two kinds: a create, idempotent by its reference, or an operation on
// one row named by the path. Both answer the row on the wire, through its schema (also the allowlist of
// what a row shows).

/** A resource as its routes answer it. */
export interface SimResource<Row> {
  wire: TSchema;
  toWire: (row: Row) => unknown;
}

/** POST `path`: `create` from the body; 201, 200 for a replay, or the refusal (http.ts sendCreated). */
export function createRoute<B extends TSchema, Row, C extends AcquirerRejectionCode>(
  app: FastifyInstance,
  resource: SimResource<Row>,
  route: {
    path: string;
    body: B;
    create: (body: Static<B>) => Promise<Created<Row, C>>;
    refusals: Refusals<C>;
  },
): void {
  const response = { 200: resource.wire, 201: resource.wire };
  app
    .withTypeProvider<TypeBoxTypeProvider>()
    .post(route.path, { schema: { body: route.body, response } }, async (request, reply) =>
      sendCreated(reply, await route.create(request.body), resource.toWire, route.refusals),
    );
}

/**
 * GET or POST `path` on the row its params name: the row, 404 ("No such `notFound`.") when `answer`
 * finds none, or 422 when it answers one of its `refusals` instead of a row.
 */
export function rowRoute<
  P extends TSchema,
  Row extends object,
  C extends AcquirerRejectionCode = never,
>(
  app: FastifyInstance,
  resource: SimResource<Row>,
  route: {
    method: 'get' | 'post';
    path: string;
    params: P;
    notFound: string;
    answer: (params: Static<P>) => Promise<Row | undefined | NoInfer<C>>;
    refusals?: Record<C, string>;
  },
): void {
  app.withTypeProvider<TypeBoxTypeProvider>().route({
    method: route.method,
    url: route.path,
    schema: { params: route.params, response: { 200: resource.wire } },
    handler: async (request, reply) => {
      const result = await route.answer(request.params);
      if (result === undefined) return notFoundReply(reply, route.notFound);
      if (typeof result === 'string') return reject(reply, result, route.refusals![result]);
      return resource.toWire(result);
    },
  });
}
