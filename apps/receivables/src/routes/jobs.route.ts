import { isDateString } from '@pgw/domain';
import { ApiError, JobResultSchema, requireOperator, type App } from '@pgw/platform-http';
import { runJob, type JobContext, type JobName } from '../operations/jobs';

const JOBS: readonly JobName[] = ['receivables-release', 'settlement-run'];

/**
 * The optional body `{as_of_date}`. Checked in the handler rather than by a body schema: the body may be
 * absent altogether (the operator's default is today), which a schema would refuse, and the operator
 * check must come before any 422.
 */
function asOfDate(body: unknown, today: string): string {
  if (body === undefined || body === null) return today;
  if (typeof body !== 'object' || Array.isArray(body))
    throw new ApiError('parameter_invalid', 'body: must be an object');
  for (const key of Object.keys(body)) {
    if (key !== 'as_of_date')
      throw new ApiError('parameter_unknown', `${key}: is not a known parameter`, key);
  }
  const value: unknown = (body as { as_of_date?: unknown }).as_of_date;
  if (value === undefined) return today;
  if (typeof value !== 'string' || !isDateString(value))
    throw new ApiError('parameter_invalid', 'as_of_date: must be a date YYYY-MM-DD', 'as_of_date');
  return value;
}

/** POST /admin/v1/jobs/{receivables-release,settlement-run}: the operator API (contract §5), forwarded by the gateway. */
export function jobsRoutes(app: App, ctx: Omit<JobContext, 'requestId'>): void {
  for (const job of JOBS) {
    app.post(
      `/admin/v1/jobs/${job}`,
      { schema: { response: { 200: JobResultSchema } } },
      async (request) => {
        requireOperator(request);
        const date = asOfDate(request.body, ctx.clock.today());
        const processed = await runJob({ ...ctx, requestId: request.id }, job, date);
        return { job, as_of_date: date, processed, request_id: request.id };
      },
    );
  }
}
