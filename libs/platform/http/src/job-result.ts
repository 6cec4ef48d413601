import { Type } from '@sinclair/typebox';
import { RequestIdSchema } from './schemas';

/** What an operator's POST /admin/v1/jobs/{job} answers (contract §5), in every service that runs jobs. */
export const JobResultSchema = Type.Object(
  {
    job: Type.String(),
    as_of_date: Type.String(),
    processed: Type.Integer({ minimum: 0 }),
    request_id: RequestIdSchema,
  },
  { additionalProperties: false },
);
