import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ProviderModeBody, type ProviderMode } from '@pgw/acquirer';
import type { Db } from '@pgw/platform-db';
import { RequestIdSchema, requireOperator } from '@pgw/platform-http';
import { readMode, writeMode } from '../fault-mode';

export const PROVIDER_MODE_PATH = '/admin/v1/simulations/provider';

const ModeResponse = Type.Object({
  object: Type.Literal('provider_simulation'),
  mode: ProviderModeBody.properties.mode,
  request_id: RequestIdSchema,
});

/** contract §5: the operator sets how the simulated providers answer until told otherwise. */
export function providerModeRoute(app: FastifyInstance, db: Db): void {
  app.post<{ Body: { mode: ProviderMode } }>(PROVIDER_MODE_PATH, { schema: { body: ProviderModeBody, response: { 200: ModeResponse } } }, async (request) => {
    requireOperator(request);
    await writeMode(db, request.body.mode);
    request.log.info({ mode: request.body.mode }, 'provider mode set');
    return { object: 'provider_simulation' as const, mode: request.body.mode, request_id: request.id };
  });

  app.get(PROVIDER_MODE_PATH, { schema: { response: { 200: ModeResponse } } }, async (request) => {
    requireOperator(request);
    return { object: 'provider_simulation' as const, mode: await readMode(db), request_id: request.id };
  });
}
