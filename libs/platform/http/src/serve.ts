import type { FastifyInstance } from 'fastify';

/**
 * Listens, and closes gracefully on SIGTERM/SIGINT: Fastify stops accepting, in-flight requests finish,
 * then the app's onClose hooks release the database, the bus and the relays.
 */
export async function serve(app: FastifyInstance, port: number, host = '0.0.0.0'): Promise<void> {
  let closing = false;
  const close = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => close('SIGTERM'));
  process.once('SIGINT', () => close('SIGINT'));
  await app.listen({ port, host });
}
