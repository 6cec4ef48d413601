import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ApiError, JobResultSchema, requireOperator } from '@pgw/platform-http';
import { isDateString } from '@pgw/domain';
import type { ChargesDeps } from '../operations/deps';
import {
  asOfInstant,
  expireAuthorizations,
  expirePixCharges,
  JOB_NAMES,
  reconcile,
  withLease,
  type JobName,
} from '../operations/jobs';
import { collectPixPayments, exchangeBoletoFiles } from '../operations/live-payments';
import { emptyBodyAsObject } from './common';

const JobBody = Type.Object(
  { as_of_date: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

/**
 * POST /admin/v1/jobs/{authorization-expiry, pix-expiry, refund-reconciliation, pix-payments, boleto-exchange} (contract §5; the last two: issue 23): one route
 * per job, as the gateway forwards them. Each run holds the job's lease, so two never overlap.
 */
export function jobRoutes(app: FastifyInstance, deps: ChargesDeps): void {
  const run: Record<JobName, (asOf: Date) => Promise<number>> = {
    'authorization-expiry': (asOf) => expireAuthorizations(deps, asOf),
    'pix-expiry': (asOf) => expirePixCharges(deps, asOf),
    'refund-reconciliation': () => reconcile(deps),
    'pix-payments': () => collectPixPayments(deps, app.log),
    'boleto-exchange': () => exchangeBoletoFiles(deps, app.log),
  };
  for (const job of JOB_NAMES) {
    app.withTypeProvider<TypeBoxTypeProvider>().post(
      `/admin/v1/jobs/${job}`,
      {
        schema: { body: JobBody, response: { 200: JobResultSchema } },
        preValidation: [async (request) => requireOperator(request), emptyBodyAsObject],
      },
      async (request) => {
        const today = deps.clock.today();
        const asOfDate = request.body.as_of_date ?? today;
        if (!isDateString(asOfDate))
          throw new ApiError(
            'parameter_invalid',
            'as_of_date: must be a date (YYYY-MM-DD)',
            'as_of_date',
          );
        const processed = await withLease(deps.db, job, () =>
          run[job](asOfInstant(asOfDate, today, deps.clock.now())),
        );
        request.log.info({ job, as_of_date: asOfDate, processed }, 'job run');
        return { job, as_of_date: asOfDate, processed, request_id: request.id };
      },
    );
  }
}
