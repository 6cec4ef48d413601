import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import {
  certificateFromHeader,
  parsePixNotification,
  railRecordOf,
  trustsNotifier,
} from '@pgw/acquirer';
import {
  ApiError,
  buildApp,
  ConfigError,
  RequestIdSchema,
  requireOperator,
  type App,
} from '@pgw/platform-http';
import { pixRailChoices } from '../data/live-rails.repository';
import type { ChargesDeps } from '../operations/deps';
import { confirmNotifiedPix } from '../operations/live-payments';
import { assert } from '@pgw/domain';

// POST /provider/v1/pix/notifications/pix: where a PSP's API Pix webhook lands (registered at the PSP as
// `…/provider/v1/pix/notifications`; the standard appends `/pix`). The PSP delivers it over mutual TLS,
// and only a notification whose client certificate stands for a tenant's configured Pix account is taken
// (the account's PIX_BCB_WEBHOOK_CLIENT_CERT_SHA256 or _CA_FILE, see libs/acquirer pix-bcb); it acts only
// on the charges of the accounts the certificate stands for. The certificate is read either
// - from the TLS handshake of a listener charges terminates itself (PIX_NOTIFY_TLS_PORT, _CERT_FILE,
//   _KEY_FILE): the PSP connects to it directly; or
// - behind an ingress that terminates the mutual TLS: from the header PIX_NOTIFY_CLIENT_CERT_HEADER that
//   the ingress sets (or removes) on every request, reaching charges through the gateway, whose signed
//   principal proves the request came in by the ingress and the gateway.
// Anything else is 401 (principal_invalid, the contract's body) and changes nothing. Even then the body
// is a hint: every Pix it names is confirmed at the PSP before a charge moves (live-payments.ts).

export const PIX_NOTIFICATIONS_PATH = '/provider/v1/pix/notifications/pix';
/** A notification lists the Pix of one moment; a PSP batches few. More is refused whole (the PSP retries, smaller). */
export const NOTIFIED_PIX_MAX = 1_000;

const NotificationBody = Type.Object({
  pix: Type.Array(Type.Unknown(), { minItems: 1, maxItems: NOTIFIED_PIX_MAX }),
});
const NotificationAnswer = Type.Object(
  {
    received: Type.Integer({ minimum: 0 }),
    paid: Type.Integer({ minimum: 0 }),
    refunds_settled: Type.Integer({ minimum: 0 }),
    request_id: RequestIdSchema,
  },
  { additionalProperties: false },
);

const unauthenticated = (): ApiError =>
  new ApiError(
    'principal_invalid',
    "The notification is not authenticated as a tenant's Pix provider (mutual TLS client certificate).",
  );

/** The client certificate the request was made with, if the socket is TLS (a listener of ours) or the ingress forwarded one. */
function clientCertificateOf(
  request: FastifyRequest,
  certHeader: string | null,
): X509Certificate | null {
  const socket = request.raw.socket as Partial<TLSSocket>;
  if (socket.encrypted === true && typeof socket.getPeerX509Certificate === 'function')
    return socket.getPeerX509Certificate() ?? null;
  // Behind the ingress: only through the gateway (its principal, signed for this path), and only the configured header.
  requireOperator(request);
  return certHeader === null ? null : certificateFromHeader(request.headers[certHeader]);
}

/** The Pix accounts (rail records) whose configured PSP certificates include this one. */
async function notifiersOf(deps: ChargesDeps, cert: X509Certificate): Promise<Set<string>> {
  const now = deps.clock.now();
  const notifiers = new Set<string>();
  for (const choice of await deps.db.read((q) => pixRailChoices(q))) {
    const trust = deps.acquirers.pixNotifierTrust(choice);
    if (trust !== null && trustsNotifier(trust, cert, now)) notifiers.add(railRecordOf(choice));
  }
  return notifiers;
}

export function pixNotificationsRoute(app: FastifyInstance, deps: ChargesDeps): void {
  const certHeader = deps.config.pixNotifyCertHeader;
  const authenticated = new WeakMap<FastifyRequest, Set<string>>();
  app.post(
    PIX_NOTIFICATIONS_PATH,
    {
      schema: { body: NotificationBody, response: { 200: NotificationAnswer } },
      preValidation: async (request) => {
        const cert = clientCertificateOf(request, certHeader);
        if (cert === null) throw unauthenticated();
        const notifiers = await notifiersOf(deps, cert);
        if (notifiers.size === 0) {
          request.log.warn(
            { fingerprint256: cert.fingerprint256 },
            'Pix notification refused: the client certificate is no configured PSP',
          );
          throw unauthenticated();
        }
        authenticated.set(request, notifiers);
      },
    },
    async (request) => {
      const notifiers = authenticated.get(request);
      // The preValidation hook above refuses every request it did not authenticate.
      assert(notifiers !== undefined, 'pix-notification.authenticated-before-handler');
      const parsed = parsePixNotification(request.body);
      if (!parsed.ok) throw new ApiError('parameter_invalid', parsed.reason, 'pix');
      const { paid, refundsSettled } = await confirmNotifiedPix(deps, parsed.pix, notifiers);
      request.log.info(
        {
          received: parsed.pix.length,
          paid,
          refunds_settled: refundsSettled,
          notifiers: [...notifiers],
        },
        'Pix notification',
      );
      return {
        received: parsed.pix.length,
        paid,
        refunds_settled: refundsSettled,
        request_id: request.id,
      };
    },
  );
  const tls = deps.config.pixNotifyTls;
  if (tls !== null) {
    let listener: PixNotificationsListener | null = null;
    app.addHook('onReady', async () => {
      listener = await startPixNotificationsListener(deps, tls, app.log);
      listeners.set(app, listener);
    });
    app.addHook('onClose', async () => listener?.close());
  }
}

export interface PixNotificationsListener {
  address: AddressInfo;
  close(): Promise<void>;
}

const listeners = new WeakMap<object, PixNotificationsListener>();

/** Where the TLS listener of an app's notification route listens (PIX_NOTIFY_TLS_PORT=0 picks a free port). */
export function pixNotificationsListenerOf(app: object): PixNotificationsListener | undefined {
  return listeners.get(app);
}

/**
 * The TLS listener for the PSP's webhook: an app with this one route, behind an HTTPS server that asks
 * every client for its certificate and leaves the verdict to the route (a 401 with the contract's body
 * rather than a failed handshake, and per account: pinned or issued by the account's CA).
 */
export async function startPixNotificationsListener(
  deps: ChargesDeps,
  tls: NonNullable<ChargesDeps['config']['pixNotifyTls']>,
  log: FastifyInstance['log'],
): Promise<PixNotificationsListener> {
  const read = (name: string, path: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new ConfigError(
        `${name}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  };
  const app: App = buildApp({ name: 'charges-pix-notifications', log: { level: log.level } });
  app.decorateRequest('principal', null);
  pixNotificationsRoute(app, {
    ...deps,
    config: { ...deps.config, pixNotifyTls: null, pixNotifyCertHeader: null },
  });
  await app.ready();
  const server: HttpsServer = createHttpsServer(
    {
      cert: read('PIX_NOTIFY_TLS_CERT_FILE', tls.certFile),
      key: read('PIX_NOTIFY_TLS_KEY_FILE', tls.keyFile),
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => app.routing(req, res),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(tls.port, tls.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  log.info({ port: address.port }, 'Pix notifications: TLS listener for the PSP');
  return {
    address,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}
