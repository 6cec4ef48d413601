import { context, propagation } from '@opentelemetry/api';
import { injectAsOwnRequest, timeClientRequest, type App } from '@pgw/platform-http';
import type { PeerRequest, PeerResponse, Peers } from './service';

const DEFAULT_TIMEOUT_MS = 5_000;

/** Peers over HTTP, for the distributed mode: `baseUrls` maps a service name to e.g. http://vault:8080. */
export class HttpPeers implements Peers {
  constructor(private readonly baseUrls: Record<string, string>) {}

  async request(service: string, request: PeerRequest): Promise<PeerResponse> {
    const base = this.baseUrls[service];
    if (base === undefined) throw new Error(`no URL configured for service ${service}`);
    // The peer's work joins the caller's trace (fetch is not instrumented, so the context is set here).
    const traceHeaders: Record<string, string> = {};
    propagation.inject(context.active(), traceHeaders);
    const url = new URL(request.url, base);
    const timer = timeClientRequest(request.method, url);
    let response: Response;
    try {
      response = await fetch(url, {
        method: request.method,
        headers: {
          ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...traceHeaders,
          ...request.headers,
        },
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        signal: AbortSignal.timeout(request.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      timer.failed(error);
      throw error;
    }
    timer.answered(response.status);
    const text = await response.text();
    return {
      statusCode: response.status,
      body: text === '' ? null : (JSON.parse(text) as unknown),
    };
  }
}

/** Peers in one process, for the all-in-one mode and tests: the same routes, without a network hop. */
export class InjectPeers implements Peers {
  private readonly apps = new Map<string, App>();

  register(service: string, app: App): void {
    this.apps.set(service, app);
  }

  async request(service: string, request: PeerRequest): Promise<PeerResponse> {
    const app = this.apps.get(service);
    if (app === undefined) throw new Error(`service ${service} is not running in this process`);
    const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    // The same deadline as over HTTP: a peer that does not answer in time is a timeout to the caller,
    // whatever it goes on to do.
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new DOMException(`${service} did not answer within ${timeoutMs} ms`, 'TimeoutError'),
          ),
        timeoutMs,
      );
    });
    const response = await Promise.race([
      injectAsOwnRequest(app, {
        method: request.method,
        url: request.url,
        headers: request.headers ?? {},
        ...(request.body !== undefined ? { payload: request.body as object } : {}),
      }),
      deadline,
    ]).finally(() => clearTimeout(timer));
    return {
      statusCode: response.statusCode,
      body: response.body === '' ? null : (JSON.parse(response.body) as unknown),
    };
  }
}
