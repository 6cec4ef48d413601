// Shared by the security suites: a client of the all-in-one over HTTP, the contract's error-body check,
// and the provisioning of tenants, sellers and keys through the operator API.
import { PERMISSIONS, type PublicRoute } from '@pgw/gateway';
import type { AllInOne } from '../all-in-one';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // Answers are read field by field in the tests; the contract check does not trust this type.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface CallOptions {
  bearer?: string;
  /** An object is sent as JSON; a string is sent as it is (with the content type of `headers`, if any). */
  body?: unknown;
  headers?: Record<string, string>;
}

export class Client {
  constructor(
    readonly system: AllInOne,
    readonly defaultBearer: string,
  ) {}

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const raw = typeof options.body === 'string';
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.bearer ?? this.defaultBearer}`,
      ...(options.body !== undefined && !raw ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    };
    const res = await fetch(`${this.system.url}${path}`, {
      method,
      headers,
      ...(options.body !== undefined
        ? { body: raw ? (options.body as string) : JSON.stringify(options.body) }
        : {}),
    });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      body = { unparsable: text };
    }
    return { status: res.status, headers: res.headers, text, body };
  }

  admin(method: string, path: string, body?: unknown): Promise<Answer> {
    return this.call(method, path, {
      bearer: this.system.adminToken,
      ...(body !== undefined ? { body } : {}),
    });
  }
}

// What a leak looks like in an answer: a stack frame, SQL, a driver's or runtime's message.
const LEAK_PATTERNS: RegExp[] = [
  /\bat [\w.<>$]+ \(/, // "at fn (file:line)"
  /\bat (?:async )?\/?[\w./-]+\.[jt]s:\d+/,
  /node:internal|node_modules|\.ts:\d+:\d+|\.js:\d+:\d+/,
  /\bselect\s.+\sfrom\b|\binsert into\b|\bupdate \w+ set\b|\bdelete from\b/i,
  /\brelation "|\bsyntax error at|\bduplicate key value|\bviolates .* constraint|\bpglite\b|\bknex\b/i, // whole words: a random id may spell "kneX"
  /TypeError|ReferenceError|RangeError|Cannot read propert|is not a function|undefined is not/,
];

/** Why the answer is not a contract error body with a 4xx, or null when it is one. */
export function contractErrorProblem(answer: Answer): string | null {
  if (answer.status < 400 || answer.status >= 500)
    return `status ${answer.status}: ${answer.text.slice(0, 300)}`;
  for (const pattern of LEAK_PATTERNS)
    if (pattern.test(answer.text)) return `leak ${pattern}: ${answer.text.slice(0, 300)}`;
  const body = answer.body as { error?: Record<string, unknown>; request_id?: unknown } | null;
  const error = body?.error;
  if (typeof error !== 'object' || error === null)
    return `no error object: ${answer.text.slice(0, 300)}`;
  if (
    typeof error.type !== 'string' ||
    typeof error.code !== 'string' ||
    typeof error.message !== 'string'
  )
    return `error fields: ${answer.text.slice(0, 300)}`;
  if (!(error.param === null || typeof error.param === 'string'))
    return `param: ${answer.text.slice(0, 300)}`;
  if (typeof body?.request_id !== 'string' || !/^req_/.test(body.request_id))
    return `request_id: ${answer.text.slice(0, 300)}`;
  if (answer.headers.get('x-request-id') !== body.request_id)
    return `X-Request-Id ${answer.headers.get('x-request-id')} ≠ ${String(body.request_id)}`;
  return null;
}

/** A concrete path of a PUBLIC_ROUTES entry, with `id` in place of its one parameter. */
export const pathOf = (route: PublicRoute, id: string): string =>
  route.url.replace(/:[A-Za-z_]+/, id);

export const hasIdParam = (route: PublicRoute): boolean => /:[A-Za-z_]+/.test(route.url);

export interface Party {
  tenantId: string;
  sellerId: string;
  /** Full-permission keys of the seller, per environment. */
  testKey: string;
  liveKey: string;
  /** A full-permission test key of a second approved seller of the same tenant. */
  otherSellerKey: string;
  otherSellerId: string;
  /** A full-permission test key with no seller. */
  tenantKey: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function created(answer: Promise<Answer>, what: string): Promise<any> {
  const res = await answer;
  if (res.status !== 201) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body;
}

/** A tenant with cash in treasury, two approved sellers with an anticipation limit, and their keys. */
export async function provisionParty(client: Client, name: string, seed: number): Promise<Party> {
  const tenant = await created(
    client.admin('POST', '/admin/v1/tenants', { name, treasury_available_cash_cents: 100_000_000 }),
    'tenant',
  );
  const seller = (n: number) =>
    created(
      client.admin('POST', `/admin/v1/tenants/${tenant.id}/sellers`, {
        name: `${name} seller ${n}`,
        document: cpf(seed * 10 + n),
        kyc_status: 'approved',
        anticipation_limit_cents: 50_000_000,
      }),
      'seller',
    );
  const s1 = await seller(1);
  const s2 = await seller(2);
  const key = async (sellerId: string | null, environment: 'test' | 'live') =>
    (
      await created(
        client.admin('POST', '/admin/v1/api-keys', {
          tenant_id: tenant.id,
          seller_id: sellerId,
          environment,
          permissions: [...PERMISSIONS],
        }),
        'key',
      )
    ).secret as string;
  return {
    tenantId: tenant.id,
    sellerId: s1.id,
    testKey: await key(s1.id, 'test'),
    liveKey: await key(s1.id, 'live'),
    otherSellerKey: await key(s2.id, 'test'),
    otherSellerId: s2.id,
    tenantKey: await key(null, 'test'),
  };
}

export const buyer = (seed: number) => ({
  name: 'Maria Oliveira',
  email: 'maria@example.com',
  phone: '(21) 99876-5432',
  document: cpf(seed),
  address: {
    line_1: 'Rua do Ouvidor, 50',
    zip_code: '20040-030',
    city: 'Rio de Janeiro',
    state: 'RJ',
  },
});

export const today = (): string => new Date().toISOString().slice(0, 10);
export const daysFromToday = (days: number): string =>
  new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** A valid CPF from a seed (check digits of Receita Federal's rule); @pgw/domain is lazy-loaded elsewhere. */
export function cpf(seed: number): string {
  const digits = String(100_000_000 + ((seed * 7_919) % 899_999_999))
    .slice(0, 9)
    .split('')
    .map(Number);
  for (const length of [9, 10]) {
    const sum = digits.slice(0, length).reduce((acc, d, i) => acc + d * (length + 1 - i), 0);
    const rest = (sum * 10) % 11;
    digits.push(rest === 10 ? 0 : rest);
  }
  return digits.join('');
}
