import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ProviderModeBody } from '@pgw/acquirer';
import { RequestIdSchema, requireOperator } from '@pgw/platform-http';
import type { SimStore } from '../data/sim-store';

export const PROVIDER_MODE_PATH = '/admin/v1/simulations/provider';

const ModeResponse = Type.Object({
  object: Type.Literal('provider_simulation'),
  mode: ProviderModeBody.properties.mode,
  request_id: RequestIdSchema,
});

/** contract §5: the operator sets how the simulated providers answer until told otherwise. */
export function providerModeRoute(app: FastifyInstance, store: SimStore): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    PROVIDER_MODE_PATH,
    { schema: { body: ProviderModeBody, response: { 200: ModeResponse } } },
    async (request) => {
      requireOperator(request);
      await store.writeMode(request.body.mode);
      request.log.info({ mode: request.body.mode }, 'provider mode set');
      return {
        object: 'provider_simulation' as const,
        mode: request.body.mode,
        request_id: request.id,
      };
    },
  );

  app.get(PROVIDER_MODE_PATH, { schema: { response: { 200: ModeResponse } } }, async (request) => {
    requireOperator(request);
    return {
      object: 'provider_simulation' as const,
      mode: await store.readMode(),
      request_id: request.id,
    };
  });
}
