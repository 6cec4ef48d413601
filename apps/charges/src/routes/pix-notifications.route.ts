import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { parsePixNotification } from '@pgw/acquirer';
import { ApiError, RequestIdSchema, requireOperator } from '@pgw/platform-http';
import type { ChargesDeps } from '../operations/deps';
import { confirmNotifiedPix } from '../operations/live-payments';

// POST /provider/v1/pix/notifications/pix: where a PSP's API Pix webhook lands (registered at the PSP as
// `…/provider/v1/pix/notifications`; the standard appends `/pix`). The gateway forwards it here; in a
// deployment the PSP is authenticated at the ingress by mutual TLS. Its body is a hint: every Pix it names
// is confirmed at the PSP before a charge moves (live-payments.ts).

export const PIX_NOTIFICATIONS_PATH = '/provider/v1/pix/notifications/pix';
/** A notification lists the Pix of one moment; a PSP batches few. More is refused whole (the PSP retries, smaller). */
export const NOTIFIED_PIX_MAX = 1_000;

const NotificationBody = Type.Object({ pix: Type.Array(Type.Unknown(), { minItems: 1, maxItems: NOTIFIED_PIX_MAX }) });
const NotificationAnswer = Type.Object(
  { received: Type.Integer({ minimum: 0 }), paid: Type.Integer({ minimum: 0 }), refunds_settled: Type.Integer({ minimum: 0 }), request_id: RequestIdSchema },
  { additionalProperties: false },
);

export function pixNotificationsRoute(app: FastifyInstance, deps: ChargesDeps): void {
  app.post(
    PIX_NOTIFICATIONS_PATH,
    { schema: { body: NotificationBody, response: { 200: NotificationAnswer } }, preValidation: async (request) => requireOperator(request) },
    async (request) => {
      const parsed = parsePixNotification(request.body);
      if (!parsed.ok) throw new ApiError('parameter_invalid', parsed.reason, 'pix');
      const { paid, refundsSettled } = await confirmNotifiedPix(deps, parsed.pix);
      request.log.info({ received: parsed.pix.length, paid, refunds_settled: refundsSettled }, 'Pix notification');
      return { received: parsed.pix.length, paid, refunds_settled: refundsSettled, request_id: request.id };
    },
  );
}
