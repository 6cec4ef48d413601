import { ADMIN_TOKEN, bearer, createKey, createTenant, type Fixture } from './gateway-fixture';

// Test support for the operator's list routes (not a spec itself): what every list must do, checked the
// same way for each — paged with the list envelope, newest first, the admin token required.

export interface ListAnswer {
  object: string;
  data: Array<{ id: string; [field: string]: unknown }>;
  page: number;
  limit: number;
  total: number;
  total_pages: number;
  request_id: string;
}

/** GET `url` as the operator, expecting 200. */
export async function list(f: Fixture, url: string): Promise<ListAnswer> {
  const res = await f.admin('GET', url);
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.payload}`);
  return res.json();
}

/**
 * Every page of `url` at `limit` a page, each checked against the envelope of contract §2: the same total
 * on every page, total_pages = ⌈total / limit⌉, a full page but the last, the request id of the answer.
 */
export async function everyPage(f: Fixture, url: string, limit: number): Promise<ListAnswer[]> {
  const separator = url.includes('?') ? '&' : '?';
  const first = await list(f, `${url}${separator}limit=${limit}`);
  const pages = [first];
  for (let page = 2; page <= first.total_pages; page += 1)
    pages.push(await list(f, `${url}${separator}limit=${limit}&page=${page}`));
  for (const [index, answer] of pages.entries()) {
    expect(answer).toMatchObject({
      object: 'list',
      page: index + 1,
      limit,
      total: first.total,
      total_pages: Math.ceil(first.total / limit),
      request_id: expect.stringMatching(/^req_/),
    });
    expect(answer.data.length).toBe(index + 1 < pages.length ? limit : first.total - limit * index);
  }
  return pages;
}

/** The ids of every page, in order. */
export const idsOf = (pages: ListAnswer[]): string[] =>
  pages.flatMap((p) => p.data.map((item) => item.id));

/** Proves `url` answers 401 admin_token_invalid without the admin token, with a wrong one, and with a tenant's API key. */
export async function expectAdminTokenRequired(f: Fixture, url: string): Promise<void> {
  const key = await createKey(f, {
    tenantId: await createTenant(f),
    permissions: ['charges:read'],
  });
  for (const headers of [
    {},
    { authorization: 'Bearer not-the-token-000000000' },
    { authorization: `Bearer ${ADMIN_TOKEN}x` },
    bearer(key.secret),
  ]) {
    const res = await f.app.inject({ method: 'GET', url, headers });
    expect([res.statusCode, res.json().error.code]).toEqual([401, 'admin_token_invalid']);
  }
}

/** Proves a list under /admin/v1/tenants/{id}/… answers 404 resource_not_found for an unknown or malformed tenant id. */
export async function expectUnknownTenantNotFound(
  f: Fixture,
  path: (tenantId: string) => string,
): Promise<void> {
  for (const tenantId of ['ten_unknown000000000000000', 'nope', 'seller_x']) {
    const res = await f.admin('GET', path(tenantId));
    expect([tenantId, res.statusCode, res.json().error.code]).toEqual([
      tenantId,
      404,
      'resource_not_found',
    ]);
  }
}
