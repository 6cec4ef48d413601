import { context, propagation } from '@opentelemetry/api';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import { injectAsOwnRequest, timeClientRequest, type App } from '@pgw/platform-http';
import type { PeerRequest, PeerResponse, Peers } from './service';

const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * Peers over HTTP, for the distributed mode: `baseUrls` maps a service name to e.g. http://vault:8080. Calls go
 * through undici's `request` on a keep-alive pool per origin: Node's `fetch` is undici too, but its WHATWG
 * layer (Request, Headers, web streams) was a tenth of the charges service's CPU for its one call per charge.
 */
export class HttpPeers implements Peers {
  private readonly dispatcher = new Agent();

  constructor(private readonly baseUrls: Record<string, string>) {}

  async request(service: string, request: PeerRequest): Promise<PeerResponse> {
    const base = this.baseUrls[service];
    if (base === undefined) throw new Error(`no URL configured for service ${service}`);
    // The peer's work joins the caller's trace (undici is not instrumented, so the context is set here).
    const headers: Record<string, string> = {};
    propagation.inject(context.active(), headers);
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    Object.assign(headers, request.headers);
    const url = new URL(request.url, base);
    const timer = timeClientRequest(request.method, url);
    let response: Dispatcher.ResponseData;
    try {
      response = await undiciRequest(url, {
        dispatcher: this.dispatcher,
        method: request.method,
        headers,
        body: request.body !== undefined ? JSON.stringify(request.body) : null,
        signal: AbortSignal.timeout(request.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      timer.failed(error);
      throw error;
    }
    timer.answered(response.statusCode);
    const text = await response.body.text();
    return {
      statusCode: response.statusCode,
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
