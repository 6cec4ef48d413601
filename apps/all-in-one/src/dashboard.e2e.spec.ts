// The dashboard (apps/dashboard) in a real browser against the all-in-one, as a seller and an operator use
// it: sign in, see a charge made through the API listed and filtered by status, method and date, refund it
// from its page, see the balance move, see a charge's refunds, receivables and events, capture an
// authorized charge, read the receivables calendar, simulate and execute an anticipation of picked
// receivables and of all eligible ones, see the settlements paid, page and export the balance history; as
// an operator, find tenants and their sellers in lists, approve a seller, list, create and edit pricing
// plans and assign one to a seller, create and revoke a key, see a failed webhook's attempts and redeliver
// it, open and resolve a chargeback, and replay the events a consumer parked. Every page passes axe-core
// with no serious or critical violation (one in English too), and is photographed at desktop and phone width. Headless Chromium is Debian's `chromium`
// driven by playwright-core; where it is absent the suite is skipped and says so (CI sets REQUIRE_CHROMIUM).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { generateCpf, PERMISSIONS } from '@pgw/domain';
import { ledgerService } from '@pgw/ledger';
import { HEADER_EVENT_TYPE } from '@pgw/platform-bus';
import type { ConsumerDefinition, ServiceDefinition } from '@pgw/platform-service';
import { Gateway } from '@pgw/sdk';
import { waitFor } from '@pgw/testing';
import { startAllInOne, type AllInOne } from './all-in-one';
import { BUYER, client } from './e2e.scenarios';
import { SERVICES } from './services';

const ROOT = join(__dirname, '..', '..', '..');
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) =>
  existsSync(path),
);
const REQUIRED = process.env.REQUIRE_CHROMIUM === '1';
if (CHROMIUM === undefined && !REQUIRED)
  process.stdout.write(
    'dashboard.e2e.spec: SKIPPED the dashboard browser tests: no chromium (apt-get install chromium)\n',
  );
const describeWithBrowser = CHROMIUM === undefined && !REQUIRED ? describe.skip : describe;

// The screenshots go to a fresh temporary directory, or to DASHBOARD_SCREENSHOTS_DIR (docs/dashboard's come from there).
const SHOTS =
  process.env.DASHBOARD_SCREENSHOTS_DIR ?? mkdtempSync(join(tmpdir(), 'pgw-dashboard-shots-'));
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
// A failed delivery is retried after this, far beyond the test: only the redeliver button sends it again.
// An event whose handler keeps failing is parked after two attempts rather than five over 30 s.
const ENV = {
  WEBHOOK_RETRY_BASE_MS: '3600000',
  WEBHOOK_RETRY_CAP_MS: '3600000',
  WEBHOOK_TIMEOUT_MS: '2000',
  CONSUMER_POISON_ATTEMPTS: '2',
  CONSUMER_POISON_AFTER_MS: '0',
};

// The real ledger with a bug the test switches on for the sellers listed here: their balance movements
// (the ledger's only events that move money) throw, as a handler failing on some data would, so the ledger parks them (handler_failed); taking the
// seller out of the list is the deploy that fixes it, after which a replay applies them.
const faultyFor = new Set<string>();
const FAULT = 'the test broke the ledger for this seller';
const MOVED = 'receivables.balance-moved.v1';
const faultyLedger: ServiceDefinition = {
  ...ledgerService,
  async build(app, context) {
    const parts = await ledgerService.build(app, context);
    return {
      ...parts,
      consumers: (parts.consumers ?? []).map((consumer): ConsumerDefinition => ({
        ...consumer,
        apply: async (trx, message) => {
          if (faultyFor.has(message.key) && message.headers[HEADER_EVENT_TYPE] === MOVED)
            throw new Error(FAULT);
          return consumer.apply(trx, message);
        },
      })),
    };
  },
};

/** A parked event as GET /admin/v1/services/{service}/dead-letters lists it. */
interface DeadLetterItem {
  id: string;
  status: string;
  consumer: string;
  event_id: string;
  event_type: string | null;
  reason: string;
  error: string | null;
  topic: string;
  partition: number | null;
  offset: string | null;
  key: string;
  parked_at: string;
}
const CARD = {
  number: '4111 1111 1111 1111',
  exp_month: 12,
  exp_year: 2031,
  cvv: '123',
  holder_name: 'MARIA OLIVEIRA',
};

let system: AllInOne;
let gateway: Gateway;
let browser: Browser;
let page: Page;
let receiver: Server;
let receiverAnswers = 500;
const received: Array<{ eventId: string; answered: number }> = [];
let endpointId: string;
const outside: string[] = [];
const admin = (method: string, path: string, body?: unknown) =>
  client({
    url: system.url,
    adminToken: system.adminToken,
    tenantId: system.demo!.tenantId,
    apiKey: system.demo!.apiKey,
  }).admin(method, path, body);

// The browser's globals, for the functions that page.evaluate runs there: this project has no DOM library.
declare const document: any;
declare const window: any;

/** axe-core's serious and critical violations of the page as it is now, with the elements at fault. */
async function seriousViolations(): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (script-src 'self') would refuse it as an inline script.
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const result: axe.AxeResults = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => JSON.stringify(n.target)),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.targets.join(' ')}`);
}

/** The page checked by axe-core, then photographed at desktop and at phone width. */
async function checkAndShoot(name: string): Promise<void> {
  expect(await seriousViolations()).toEqual([]);
  await page.screenshot({ path: join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  // At a phone's width nothing the reader sees may reach past the screen. What a box clips (the tables,
  // which scroll inside theirs; a calendar day's sums, kept in a 1 px box for screen readers) is seen only
  // as far as that box, wherever the day falls in the week.
  const overflowing = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const visibleRight = (element: any) => {
      let right = element.getBoundingClientRect().right;
      for (let box = element.parentElement; box && box !== document.body; box = box.parentElement)
        if (window.getComputedStyle(box).overflowX !== 'visible')
          right = Math.min(right, box.getBoundingClientRect().right);
      return right;
    };
    return [...document.querySelectorAll('body *')]
      .filter((element: any) => visibleRight(element) > width + 1)
      .map(
        (element: any) =>
          `${element.tagName.toLowerCase()}.${element.className}: ${(element.textContent ?? '').slice(0, 40)}`,
      );
  });
  expect(overflowing).toEqual([]);
  expect(
    await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    ),
  ).toBeLessThanOrEqual(0);
  await page.screenshot({ path: join(SHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

/** A card charge made through the API, by the demo seller unless `seller` says otherwise. */
async function cardCharge(
  amount: number,
  more: Partial<Parameters<Gateway['charges']['create']>[0]> = {},
  seller: Gateway = gateway,
) {
  const token = await seller.tokens.create({ card: CARD });
  return seller.charges.create({
    amount,
    payment_method: 'CREDIT_CARD',
    installments: 1,
    card_token: token.id,
    buyer: BUYER,
    ...more,
  });
}

const go = (hash: string) => page.evaluate((h) => (window.location.hash = h), hash);
const text = (testId: string) => page.getByTestId(testId).innerText();
/** Today in São Paulo (YYYY-MM-DD), and the day `days` from it. */
const saoPauloDay = (days = 0) => {
  const today = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Sao_Paulo',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
  const date = new Date(`${today}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
};
const brl = (cents: number) =>
  new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' })
    .format(cents / 100)
    .replace(/\u00a0/g, ' ');

describeWithBrowser('the dashboard in Chromium', () => {
  beforeAll(async () => {
    if (CHROMIUM === undefined)
      throw new Error('REQUIRE_CHROMIUM is set and no chromium is installed');
    // The built files are not committed: Vite builds them here in a second or two, into apps/dashboard/dist.
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
        'build',
        join(ROOT, 'apps', 'dashboard'),
      ],
      {
        stdio: 'pipe',
        // Jest sets NODE_ENV=test, which Vite would honour with React's development build.
        env: { ...process.env, NODE_ENV: 'production' },
      },
    );
    mkdirSync(SHOTS, { recursive: true });
    system = await startAllInOne({
      dataDir: null,
      port: 0,
      demo: true,
      log: { level: 'silent' },
      env: { ...process.env, ...ENV },
      services: SERVICES.map((service) => (service === ledgerService ? faultyLedger : service)),
    });
    gateway = new Gateway({ apiKey: system.demo!.apiKey, baseUrl: system.url });
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          eventId: JSON.parse(Buffer.concat(chunks).toString('utf8')).id,
          answered: receiverAnswers,
        });
        res.writeHead(receiverAnswers).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const endpoint = await admin(
      'POST',
      `/admin/v1/tenants/${system.demo!.tenantId}/webhook-endpoints`,
      {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
        events: ['charge.paid'],
      },
    );
    expect(endpoint.status).toBe(201);
    endpointId = endpoint.body.id;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
    page = await context.newPage();
    // A step that waits for something the page never shows fails in seconds, not jest's minute.
    page.setDefaultTimeout(10_000);
    // Everything the page loads comes from the gateway: any other request is refused and recorded.
    await page.route('**/*', async (route) => {
      if (route.request().url().startsWith(system.url)) return route.continue();
      outside.push(route.request().url());
      return route.abort();
    });
    process.stdout.write(`dashboard.e2e.spec: screenshots in ${SHOTS}\n`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await system?.stop();
  });

  let pendingBefore: string;
  let refunded: string;
  let sale: string;
  let refundEntry: { id: string; amount_cents: number };

  it('signs a seller in with a test key kept in sessionStorage only', async () => {
    // Proves the sign-in page is accessible, the key lands in sessionStorage (nowhere else), and Home shows the balance.
    await page.goto(`${system.url}/dashboard/`);
    // React's production build, as the image serves it (the development one logs its DevTools advice).
    const logged: string[] = [];
    page.on('console', (message) => logged.push(message.text()));
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Entrar' })).toBeTruthy();
    await page.getByRole('heading', { name: 'Entrar' }).waitFor();
    await checkAndShoot('sign-in');
    await page.getByLabel('Chave de API (sk_test_… ou sk_live_…)').fill(system.demo!.apiKey);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Início' }).waitFor();
    await waitFor(
      async () => ((await text('available')) !== '…' ? true : undefined),
      10_000,
      'the balance',
    );
    const balance = await gateway.balance.retrieve();
    pendingBefore = await text('pending');
    expect(pendingBefore).toBe(brl(balance.pending_cents));
    const storage = await page.evaluate(() => ({
      session: JSON.stringify(sessionStorage),
      local: JSON.stringify(localStorage),
      cookie: document.cookie,
    }));
    expect(storage.session).toContain(system.demo!.apiKey);
    expect(storage.local).not.toContain(system.demo!.apiKey);
    expect(storage.cookie).toBe('');
    expect(logged.filter((line) => line.includes('React DevTools'))).toEqual([]);
  });

  it('lists a charge made through the API, and its filters narrow the list', async () => {
    // Proves the charge list reads the API: a charge created by the SDK appears, and a status filter hides it.
    const refundable = await cardCharge(15_000);
    const installments = await cardCharge(30_000, { installments: 3 });
    expect([refundable.status, installments.status]).toEqual(['paid', 'paid']);
    refunded = refundable.id;
    sale = installments.id;
    await go('#/charges');
    await page.getByRole('link', { name: refunded }).waitFor();
    expect(await page.getByRole('row').filter({ hasText: refunded }).innerText()).toContain(
      'R$ 150,00',
    );
    await checkAndShoot('charges');
    await page.getByLabel('Status').selectOption('refused');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('Nenhuma cobrança encontrada.').waitFor();
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Meio').selectOption('credit_card');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByRole('link', { name: sale }).waitFor();
  });

  it('filters the charges by the São Paulo day they were made', async () => {
    // Proves the date filter reaches the API: today lists what the API lists for today's bounds, tomorrow
    // and yesterday list nothing (every charge of this run is today's).
    const filter = async (from: string, to: string) => {
      await page.getByLabel('De', { exact: true }).fill(from);
      await page.getByLabel('Até', { exact: true }).fill(to);
      await page.getByRole('button', { name: 'Filtrar' }).click();
    };
    await filter(saoPauloDay(1), '');
    await page.getByText('Nenhuma cobrança encontrada.').waitFor();
    await filter(saoPauloDay(), saoPauloDay());
    await page.getByRole('link', { name: refunded }).waitFor();
    const todays = await gateway.charges.list({
      payment_method: 'credit_card',
      created_from: `${saoPauloDay()}T03:00:00.000Z`,
      created_to: `${saoPauloDay(1)}T03:00:00.000Z`,
      limit: 20,
    });
    expect(await page.getByRole('table').getByRole('link').allInnerTexts()).toEqual(
      todays.data.map((c) => c.id),
    );
    await filter('', saoPauloDay(-1));
    await page.getByText('Nenhuma cobrança encontrada.').waitFor();
    await filter(saoPauloDay(), '');
    await page.getByRole('link', { name: refunded }).waitFor();
  });

  it('refunds part of the charge from its page after a confirmation, once', async () => {
    // Proves the refund action: it asks first, Cancel does nothing, Confirm refunds R$ 50,00 once, and the API agrees.
    await page.getByRole('link', { name: refunded }).click();
    await page.getByTestId('charge-status').waitFor();
    expect(await text('charge-status')).toBe('paid');
    await page.getByLabel('Valor do estorno (R$)').fill('50,00');
    await page.getByRole('button', { name: 'Estornar' }).click();
    await page.getByRole('alertdialog').getByText('Confirmar o estorno de R$ 50,00?').waitFor();
    await page.getByRole('button', { name: 'Cancelar' }).click();
    expect((await gateway.charges.retrieve(refunded)).status).toBe('paid');
    await page.getByRole('button', { name: 'Estornar' }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Estorno de R$ 50,00: succeeded.').waitFor();
    await waitFor(
      async () => ((await text('charge-status')) === 'partially_refunded' ? true : undefined),
      10_000,
      'the charge to show partially_refunded',
    );
    expect((await gateway.charges.retrieve(refunded)).status).toBe('partially_refunded');
    const refunds = await waitFor(
      async () => {
        const entries = (await gateway.balance.history({ limit: 100 })).data.filter(
          (e) => e.charge_id === refunded && e.direction === 'debit' && e.type.startsWith('refund'),
        );
        return entries.length > 0 ? entries : undefined;
      },
      10_000,
      'the refund in the ledger',
    );
    // One refund however the answer travelled: the ledger debits its net (the fee on it comes back).
    expect(refunds).toHaveLength(1);
    refundEntry = refunds[0]!;
    // The page lists the charge's refunds and its events as the API keeps them (GET /charges/{id}/refunds and /events).
    const [refund] = (await gateway.charges.refunds(refunded)).data;
    expect([refund?.amount_cents, refund?.status]).toEqual([5_000, 'succeeded']);
    expect(
      await page
        .getByTestId('refunds')
        .getByRole('row')
        .filter({ hasText: refund!.id })
        .innerText(),
    ).toContain('R$ 50,00');
    const events = (await gateway.charges.events(refunded)).data;
    const refundEvent = events.find(
      (e) => e.type === 'refund.succeeded' && e.refund_id === refund!.id,
    )!;
    const shown = page
      .getByTestId('charge-events')
      .locator('li')
      .filter({ hasText: refundEvent.id });
    expect(await shown.innerText()).toMatch(
      /refund\.succeeded · R\$ 50,00 · cobrança partially_refunded/,
    );
    expect(await page.getByTestId('charge-events').locator('li').count()).toBe(events.length);
    await page
      .getByTestId('charge-events')
      .locator('li')
      .filter({ hasText: 'charge.paid' })
      .waitFor();
    await checkAndShoot('charge');
  });

  it('shows the balance moved by the sales and the refund', async () => {
    // Proves Home reads the ledger again: pending is no longer what it was, and is what the API says now.
    await go('#/home');
    const now = await waitFor(
      async () => {
        const shown = await text('pending');
        return shown !== '…' && shown !== pendingBefore ? shown : undefined;
      },
      10_000,
      'the pending balance to move',
    );
    expect(now).toBe(brl((await gateway.balance.retrieve()).pending_cents));
    // Today's sales load on their own request: read them once they have loaded.
    const today = await waitFor(
      async () => {
        const shown = await text('today');
        return shown.includes('…') ? undefined : shown;
      },
      10_000,
      "today's sales to load",
    );
    expect(today).toContain('R$ 450,00');
    await checkAndShoot('home');
  });

  it("lists a charge's receivables on its page as the API lists them", async () => {
    // Proves the charge page's receivables section: a row for each installment, with the API's gross, fee and net.
    await go(`#/charges/${sale}`);
    const receivables = (await gateway.receivables.list({ charge_id: sale, limit: 100 })).data;
    expect(receivables).toHaveLength(3);
    for (const r of receivables) {
      const cells = (await page.getByTestId(`receivable-${r.id}`).innerText()).split('\t');
      expect([cells[0], ...cells.slice(-3)]).toEqual([
        `${r.installment}/${r.installments}`,
        brl(r.gross_amount_cents),
        brl(r.fee_amount_cents),
        brl(r.net_amount_cents),
      ]);
    }
    expect(await page.getByTestId('charge-receivables').locator('tbody tr').count()).toBe(3);
  });

  it('captures an authorized card charge from its page after a confirmation, once', async () => {
    // Proves the capture action on a manual-capture charge: it asks first, Cancel leaves it authorized,
    // Confirm captures it, and the API holds one capture (one charge.paid event, one credit in the ledger).
    const authorized = await cardCharge(8_000, { capture_method: 'manual' });
    expect([authorized.status, authorized.captured]).toEqual(['authorized', false]);
    await go(`#/charges/${authorized.id}`);
    await page.getByTestId('charge-status').getByText('authorized').waitFor();
    await page.getByRole('button', { name: 'Capturar' }).click();
    await page.getByRole('alertdialog').getByText('Confirmar a captura do valor total?').waitFor();
    await page.getByRole('button', { name: 'Cancelar' }).click();
    expect((await gateway.charges.retrieve(authorized.id)).status).toBe('authorized');
    await page.getByRole('button', { name: 'Capturar' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Capturada.').waitFor();
    await page.getByTestId('charge-status').getByText('paid').waitFor();
    expect(await page.getByRole('button', { name: 'Capturar' }).count()).toBe(0);
    const captured = await gateway.charges.retrieve(authorized.id);
    expect([captured.status, captured.captured]).toEqual(['paid', true]);
    const events = (await gateway.charges.events(authorized.id)).data;
    expect(events.filter((e) => e.type === 'charge.paid')).toHaveLength(1);
    const credits = await waitFor(
      async () => {
        const entries = (await gateway.balance.history({ limit: 100 })).data.filter(
          (e) => e.charge_id === authorized.id && e.direction === 'credit',
        );
        return entries.length > 0 ? entries : undefined;
      },
      10_000,
      'the capture in the ledger',
    );
    expect(credits).toHaveLength(1);
  });

  it('shows the receivables in a month grid, each due day with its gross, fee and net, opened from the keyboard', async () => {
    // Proves the calendar puts each receivable's net on its due day (summed with the day's others, as the
    // API lists them), that the month arrows reach any month, and that Tab and Enter open a day's receivables.
    await go('#/receivables');
    const pending = (await gateway.receivables.list({ status: 'pending', limit: 100 })).data;
    expect(pending.filter((r) => r.charge_id === sale)).toHaveLength(3);
    const last = pending.find((r) => r.charge_id === sale && r.installment === 3)!;
    const day = last.due_date;
    const ofDay = pending.filter((r) => r.due_date === day);
    const sum = (pick: (r: (typeof ofDay)[number]) => number) =>
      brl(ofDay.reduce((total, r) => total + pick(r), 0));
    const grid = page.getByTestId('month-grid');
    await page
      .getByTestId(
        `day-${pending.find((r) => r.charge_id === sale && r.installment === 1)!.due_date}`,
      )
      .waitFor();
    // The grid opens on the first month with something due; the third installment is two months later or more.
    for (let moves = 0; (await grid.getAttribute('data-month')) !== day.slice(0, 7); moves += 1) {
      expect(moves).toBeLessThan(4);
      await page.getByRole('button', { name: 'Próximo mês' }).click();
    }
    const cell = page.getByTestId(`day-${day}`);
    const shown = await cell.innerText();
    for (const amount of [
      sum((r) => r.gross_amount_cents),
      sum((r) => r.fee_amount_cents),
      sum((r) => r.net_amount_cents),
    ])
      expect(shown).toContain(amount);
    expect(await cell.getAttribute('aria-pressed')).toBe('false');
    await page.getByRole('button', { name: 'Próximo mês' }).focus();
    // From the arrow, Tab reaches the month's first day with receivables: the grid's only buttons are those days.
    const firstBusy = await grid.locator('button[data-day]').first().getAttribute('data-day');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-day'))).toBe(
      firstBusy,
    );
    await cell.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('day-receivables').getByRole('link', { name: sale }).waitFor();
    expect(await text('day-totals')).toContain(sum((r) => r.net_amount_cents));
    expect(await cell.getAttribute('aria-pressed')).toBe('true');
    await checkAndShoot('receivables');
  });

  it('simulates an anticipation as receivables are picked, and executes it after a confirmation', async () => {
    // Proves the simulation follows the selection (one receivable, then two) and the execution anticipates exactly those.
    await go('#/anticipation');
    await page.getByLabel('Escolher recebíveis').check();
    const receivables = (await gateway.receivables.list({ status: 'pending', limit: 100 })).data
      .filter((r) => r.charge_id === sale)
      .sort((a, b) => a.installment - b.installment);
    const [one, two] = receivables;
    await page.getByLabel(`Selecionar ${one!.id}`).check();
    await waitFor(
      async () =>
        (await page
          .getByTestId('sim-gross')
          .innerText()
          .catch(() => '')) === brl(one!.net_amount_cents)
          ? true
          : undefined,
      10_000,
      'the simulation of one receivable',
    );
    await page.getByLabel(`Selecionar ${two!.id}`).check();
    const both = one!.net_amount_cents + two!.net_amount_cents;
    await waitFor(
      async () => ((await text('sim-gross')) === brl(both) ? true : undefined),
      10_000,
      'the simulation of two receivables',
    );
    const expected = await gateway.anticipations.simulate({ receivable_ids: [one!.id, two!.id] });
    expect(await text('sim-net')).toBe(brl(expected.net_amount_cents));
    await checkAndShoot('anticipation');
    await page.getByRole('button', { name: 'Antecipar' }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page
      .getByText(`Antecipação concluída: ${brl(expected.net_amount_cents)} disponível.`)
      .waitFor();
    const executed = (await gateway.anticipations.list()).data;
    expect(executed).toHaveLength(1);
    expect([...executed[0]!.receivable_ids].sort()).toEqual([one!.id, two!.id].sort());
    await page.getByTestId('anticipation-history').getByText(executed[0]!.id).waitFor();
  });

  it('simulates all eligible receivables and anticipates every one of them after a confirmation', async () => {
    // Proves "all eligible": the simulation shown is the API's of every eligible receivable, and the
    // execution anticipates each of them, so none is eligible after it.
    const today = saoPauloDay();
    const eligible = async () =>
      (await gateway.receivables.list({ status: 'pending', limit: 100 })).data.filter(
        (r) => r.anticipation_id === null && r.due_date > today,
      );
    const before = await eligible();
    expect(before.length).toBeGreaterThan(1);
    await page.getByLabel('Todos os elegíveis').check();
    const expected = await gateway.anticipations.simulate({});
    expect(expected.eligible_receivable_count).toBe(before.length);
    await waitFor(
      async () =>
        (await page
          .getByTestId('sim-net')
          .innerText()
          .catch(() => '')) === brl(expected.net_amount_cents)
          ? true
          : undefined,
      10_000,
      'the simulation of all eligible receivables',
    );
    expect([await text('sim-gross'), await text('sim-fee')]).toEqual([
      brl(expected.gross_amount_cents),
      brl(expected.fee_amount_cents),
    ]);
    await page.getByRole('button', { name: 'Antecipar' }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page
      .getByText(`Antecipação concluída: ${brl(expected.net_amount_cents)} disponível.`)
      .waitFor();
    await page.getByText('Nenhum recebível elegível.').waitFor();
    const executed = (await gateway.anticipations.list()).data;
    expect(executed).toHaveLength(2);
    const all = executed.find((a) => a.receivable_ids.length === before.length)!;
    expect([...all.receivable_ids].sort()).toEqual(before.map((r) => r.id).sort());
    expect(await eligible()).toEqual([]);
  });

  it('lists the settlements paid once the settlement job has paid the available balance', async () => {
    // Proves the Receivables page's "settlements paid" shows what the API lists as paid, with its amount,
    // after the operator API ran settlement-run over the balance the anticipations made available.
    const run = await admin('POST', '/admin/v1/jobs/settlement-run', {});
    expect(run.status).toBe(200);
    const paid = await waitFor(
      async () => {
        const list = (await gateway.settlements.list({ status: 'paid', limit: 10 })).data;
        if (list.length > 0) return list;
        // A payout the bank left in flight is completed by the next run.
        await admin('POST', '/admin/v1/jobs/settlement-run', {});
        return undefined;
      },
      15_000,
      'a paid settlement',
    );
    await go('#/receivables');
    for (const settlement of paid)
      expect(await text(`settlement-${settlement.id}`)).toContain(brl(settlement.amount_cents));
    expect(await page.getByTestId('settlements-paid').locator('li').count()).toBe(paid.length);
  });

  it('pages the balance history and exports it as CSV', async () => {
    // Proves the second page shows the entries the API's second page holds, and the export holds every
    // entry the API lists, with the refund as a negative amount.
    const made: string[] = [];
    // Sales until the history is longer than the page's 25 entries, each booked before the pages are read.
    while ((await gateway.balance.history({ limit: 25 })).total_pages < 2) {
      expect(made.length).toBeLessThan(30);
      const charge = await cardCharge(1_000 + made.length);
      made.push(charge.id);
      await waitFor(
        async () =>
          (await gateway.balance.history({ limit: 5 })).data.some((e) => e.charge_id === charge.id)
            ? true
            : undefined,
        10_000,
        'the sale in the ledger',
      );
    }
    const [first, second] = [
      await gateway.balance.history({ limit: 25 }),
      await gateway.balance.history({ page: 2, limit: 25 }),
    ];
    await go('#/balance');
    await page.getByRole('button', { name: 'Exportar CSV' }).waitFor();
    await page.getByTestId(`entry-${first.data[0]!.id}`).waitFor();
    await checkAndShoot('balance-history');
    await page.getByRole('button', { name: 'Próxima' }).click();
    await page.getByText(`Página 2 de ${first.total_pages}`).waitFor();
    await page.getByTestId(`entry-${second.data[0]!.id}`).waitFor();
    expect(
      await page
        .locator('[data-testid^="entry-"]')
        .evaluateAll((rows) => rows.map((row: any) => row.dataset.testid)),
    ).toEqual(second.data.map((e) => `entry-${e.id}`));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Exportar CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\r\n');
    const entries = await gateway.balance.history({ limit: 100 }).toArray(1_000);
    expect(csv[0]).toBe(
      'id,created_at,type,direction,amount_cents,signed_amount_cents,currency,charge_id',
    );
    expect(csv).toHaveLength(entries.length + 1);
    expect(csv.find((line) => line.startsWith(`${refundEntry.id},`))).toContain(
      `,debit,${refundEntry.amount_cents},-${refundEntry.amount_cents},BRL,${refunded}`,
    );
  });

  it('switches the interface to English and back', async () => {
    // Proves the language toggle: headings change, money stays R$, and the English page passes axe too.
    await page.getByRole('button', { name: /English/ }).click();
    await page.getByRole('heading', { name: 'Balance history' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await checkAndShoot('balance-history-en');
    await page.getByRole('button', { name: /Português/ }).click();
    await page.getByRole('heading', { name: 'Extrato' }).waitFor();
  });

  it("lists tenants and a tenant's sellers made elsewhere, creates both, and approves a KYC that the API then honours", async () => {
    // Proves the operator finds a tenant and its seller in lists (made through the API, never typed in the
    // page), sees what the page creates listed newest first, and that the approve action reaches the
    // directory: a key of the approved seller may tokenize (403 before).
    const tenant = await admin('POST', '/admin/v1/tenants', { name: 'Loja da API' });
    const seller = await admin('POST', `/admin/v1/tenants/${tenant.body.id}/sellers`, {
      name: 'Padaria da API',
      document: generateCpf(11),
    });
    expect([tenant.status, seller.status]).toEqual([201, 201]);
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.getByLabel('Operador').check();
    await page.getByLabel('Token de administrador').fill(system.adminToken);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Tenants' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'Loja da API' }).waitFor();
    await page.getByLabel('Nome').fill('Loja do Teste');
    await page.getByRole('button', { name: 'Criar' }).click();
    // The newest first: the tenant made here, then the one made through the API.
    await waitFor(
      async () =>
        (await page.getByRole('row').nth(1).innerText()).includes('Loja do Teste')
          ? true
          : undefined,
      10_000,
      'the new tenant listed first',
    );
    expect(await page.getByRole('row').nth(2).innerText()).toContain('Loja da API');
    await page.getByRole('button', { name: `Vendedores: Loja da API ${tenant.body.id}` }).click();
    const listed = page.getByTestId(`kyc-${seller.body.id}`);
    expect(await listed.innerText()).toBe('pending');
    expect(await page.getByRole('row').filter({ has: listed }).innerText()).toContain(
      'Padaria da API',
    );
    await page.getByLabel('Nome').fill('Padaria Exemplo');
    await page.getByLabel('Documento (CPF/CNPJ)').fill(generateCpf(7));
    await page.getByRole('button', { name: 'Criar' }).click();
    await waitFor(
      async () =>
        (await page.getByRole('row').nth(1).innerText()).includes('Padaria Exemplo')
          ? true
          : undefined,
      10_000,
      'the new seller listed first',
    );
    const sellerId = seller.body.id;
    const key = await admin('POST', '/admin/v1/api-keys', {
      tenant_id: tenant.body.id,
      seller_id: sellerId,
      permissions: ['payment_methods:tokenize'],
    });
    const tokenize = () =>
      client({
        url: system.url,
        adminToken: '',
        tenantId: tenant.body.id,
        apiKey: key.body.secret,
      }).call('POST', '/api/v1/payment-methods/tokenize', { body: { card: CARD } });
    expect((await tokenize()).body.error.code).toBe('seller_kyc_required');
    await page.getByRole('button', { name: `Aprovar ${sellerId}` }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Confirmar' }).click();
    await waitFor(
      async () => ((await listed.innerText()) === 'approved' ? true : undefined),
      10_000,
      'the seller to show approved',
    );
    await checkAndShoot('operator-sellers');
    await waitFor(
      async () => ((await tokenize()).status === 201 ? true : undefined),
      10_000,
      'the approved seller to tokenize',
    );
    await go('#/tenants');
    await page.getByRole('row').filter({ hasText: 'Loja da API' }).waitFor();
    await checkAndShoot('operator-tenants');
  });

  it("lists a tenant's pricing plans and creates one", async () => {
    // Proves the plans page shows what the API holds (a plan made through it, with its terms) and what it creates, the default marked.
    await admin('POST', `/admin/v1/tenants/${system.demo!.tenantId}/pricing-plans`, {
      name: 'Plano da API',
      fee_bps_per_month: 175,
      settlement_delay_days: 30,
      mdr_bps: { credit_card: 321 },
    });
    await go('#/pricing-plans');
    await page.getByLabel('Tenant', { exact: true }).selectOption(system.demo!.tenantId);
    const fromApi = page.getByRole('row').filter({ hasText: 'Plano da API' });
    expect((await fromApi.innerText()).split('\t').slice(2, 6)).toEqual([
      '175',
      '30',
      expect.stringMatching(/^321 · \d+ · \d+ · \d+$/),
      'não',
    ]);
    await page.getByLabel('Nome').fill('Plano Ouro');
    await page.getByLabel('Taxa de antecipação (bps ao mês)').fill('149');
    await page.getByLabel('Prazo de repasse (dias)').fill('2');
    await page.getByLabel('Plano padrão do tenant').check();
    await page.getByRole('button', { name: 'Criar' }).click();
    const created = page.getByRole('row').filter({ hasText: 'Plano Ouro' });
    await created.waitFor();
    expect((await created.innerText()).split('\t').slice(2, 6)).toEqual([
      '149',
      '2',
      expect.stringMatching(/^\d+ · \d+ · \d+ · \d+$/),
      'sim',
    ]);
    const plans = await admin('GET', `/admin/v1/tenants/${system.demo!.tenantId}/pricing-plans`);
    expect(
      plans.body.data.map((p: { name: string; default: boolean }) => [p.name, p.default]),
    ).toEqual([
      ['Plano Ouro', true],
      ['Plano da API', false],
    ]);
    await checkAndShoot('operator-pricing-plans');
  });

  it('edits a pricing plan and assigns one to a seller, as the API then holds them', async () => {
    // Proves the edit reaches PATCH /pricing-plans/{id} (the API answers the new fee) and the assignment
    // PATCH /sellers/{id} with pricing_plan_id (the seller's plan as the API lists it), both shown again on the page.
    const plans = (await admin('GET', `/admin/v1/tenants/${system.demo!.tenantId}/pricing-plans`))
      .body.data as Array<{ id: string; name: string; fee_bps_per_month: number }>;
    const fromApi = plans.find((p) => p.name === 'Plano da API')!;
    await page.getByRole('button', { name: 'Editar Plano da API' }).click();
    const form = page.getByRole('form', { name: 'Editar Plano da API' });
    await form.getByLabel('Taxa de antecipação (bps ao mês)').fill('180');
    await checkAndShoot('operator-pricing-plan-edit');
    await form.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Salvo.').waitFor();
    await waitFor(
      async () =>
        (await page.getByTestId(`plan-${fromApi.id}`).innerText()).split('\t')[2] === '180'
          ? true
          : undefined,
      10_000,
      'the edited fee listed',
    );
    expect(
      (
        await admin('GET', `/admin/v1/tenants/${system.demo!.tenantId}/pricing-plans`)
      ).body.data.find((p: { id: string }) => p.id === fromApi.id).fee_bps_per_month,
    ).toBe(180);
    await page.getByLabel('Vendedor', { exact: true }).selectOption(system.demo!.sellerId);
    await page.getByLabel('Plano', { exact: true }).selectOption(fromApi.id);
    await page.getByRole('button', { name: 'Atribuir' }).click();
    await page.getByTestId('seller-plan').getByText(fromApi.id).waitFor();
    const sellers = (
      await admin('GET', `/admin/v1/tenants/${system.demo!.tenantId}/sellers?limit=100`)
    ).body.data as Array<{ id: string; pricing_plan_id: string | null }>;
    expect(sellers.find((s) => s.id === system.demo!.sellerId)?.pricing_plan_id).toBe(fromApi.id);
    await checkAndShoot('operator-pricing-plans-assigned');
  });

  it('creates an API key with its secret shown once, lists it without the secret, and revokes it', async () => {
    // Proves the secret shown works against the API until the revoke action, then answers 401 api_key_revoked; the list never shows it.
    await go('#/api-keys');
    await page.getByLabel('Tenant', { exact: true }).selectOption(system.demo!.tenantId);
    await page.getByLabel('Vendedor', { exact: true }).selectOption(system.demo!.sellerId);
    await page.getByRole('button', { name: 'Criar' }).click();
    const secret = (await page.getByTestId('secret').innerText()).trim();
    expect(secret).toMatch(/^sk_test_/);
    const keyId = (await page.getByTestId('secret-key-id').innerText()).trim();
    const balance = () =>
      client({
        url: system.url,
        adminToken: '',
        tenantId: system.demo!.tenantId,
        apiKey: secret,
      }).call('GET', '/api/v1/balance');
    expect((await balance()).status).toBe(200);
    await page.getByTestId(`key-${keyId}`).waitFor();
    // The demo key, made at start, is listed too, after the newer one.
    expect(await page.getByTestId(/^key-key_/).count()).toBeGreaterThanOrEqual(2);
    expect(await page.getByRole('table').innerText()).not.toContain(secret);
    // Its row shows the end of the secret only, as the integrator can match it against the key they hold.
    expect(
      await page
        .getByRole('row')
        .filter({ has: page.getByTestId(`key-${keyId}`) })
        .innerText(),
    ).toContain(`sk_test_…${secret.slice(-4)}`);
    await checkAndShoot('operator-api-keys');
    await page.getByRole('button', { name: `Revogar ${keyId}` }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Confirmar' }).click();
    await waitFor(
      async () =>
        (await page.getByTestId(`key-${keyId}`).innerText()) === 'revoked' ? true : undefined,
      10_000,
      'the key to show revoked',
    );
    await waitFor(
      async () => ((await balance()).status === 401 ? true : undefined),
      10_000,
      'the revoked key to be refused',
    );
  });

  it("opens a webhook endpoint from its list, shows a failed delivery's attempts, and redelivers it", async () => {
    // Proves the operator reaches the endpoint without its id, sees each attempt (HTTP 500) and the button sends it again: the receiver gets it, the list says succeeded.
    await waitFor(
      async () => (received.some((r) => r.answered === 500) ? true : undefined),
      15_000,
      'a failed delivery',
    );
    await go('#/webhooks');
    await page.getByLabel('Tenant', { exact: true }).selectOption(system.demo!.tenantId);
    await page.getByRole('button', { name: `Entregas ${endpointId}` }).click();
    const failed = page.getByRole('row').filter({ hasText: 'HTTP 500' }).first();
    await failed.waitFor();
    const deliveryId = (await failed.locator('code').innerText()).trim();
    expect(await text(`delivery-${deliveryId}`)).not.toBe('succeeded');
    await page.getByRole('button', { name: `Tentativas de ${deliveryId}` }).click();
    const attempts = page.getByTestId(`attempts-${deliveryId}`);
    await attempts.waitFor();
    const delivery = await admin('GET', `/admin/v1/webhook-deliveries/${deliveryId}`);
    expect(await attempts.locator('tbody tr').count()).toBe(delivery.body.attempts.length);
    const [number, , answer] = (await attempts.locator('tbody tr').first().innerText()).split('\t');
    expect([number, answer]).toEqual(['1', 'HTTP 500']);
    await checkAndShoot('operator-webhooks');
    receiverAnswers = 200;
    await page.getByRole('button', { name: `Reenviar ${deliveryId}` }).click();
    await page.getByText('Reenviada.').waitFor();
    await waitFor(
      async () =>
        received.some((r) => r.eventId === delivery.body.event_id && r.answered === 200)
          ? true
          : undefined,
      15_000,
      'the redelivery',
    );
    await waitFor(
      async () => {
        await page.getByRole('button', { name: 'Atualizar' }).click();
        return (await text(`delivery-${deliveryId}`)) === 'succeeded' ? true : undefined;
      },
      10_000,
      'the delivery to show succeeded',
    );
  });

  it('runs a job and shows an API error with its message and request id', async () => {
    // Proves jobs run from the page, and an operator error (an unknown charge) is shown as the API said it, with the request id.
    await go('#/jobs');
    await page.getByRole('button', { name: 'Executar receivables-release' }).click();
    await page
      .getByTestId('job-results')
      .getByText(/receivables-release · \d{4}-\d{2}-\d{2} · \d+ processado/)
      .waitFor();
    await page.getByLabel('Pagar Pix/boleto (ID da cobrança)').fill('ch_doesnotexist');
    await page.getByRole('button', { name: 'Pagar' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByTestId('request-id').innerText()).toMatch(/^req_/);
    await checkAndShoot('operator-jobs');
    expect(outside).toEqual([]);
  });

  it('opens a chargeback on part of a paid card charge from the Jobs page and resolves it lost after a confirmation', async () => {
    // Proves contract §5's chargeback simulations from the page: the chargeback opened is the API's (its
    // charge, amount, reason and status), Cancel leaves it open, and Confirm resolves it lost at the API.
    const charge = await cardCharge(12_000);
    expect(charge.status).toBe('paid');
    await page.getByLabel('ID da cobrança', { exact: true }).fill(charge.id);
    await page.getByLabel('Valor (R$; vazio: o total)').fill('40,00');
    await page.getByLabel('Código do motivo').fill('4837');
    await page.getByRole('button', { name: 'Abrir um chargeback' }).click();
    const row = page.getByTestId(/^chargeback-cb_/);
    await row.waitFor();
    const id = (await row.locator('code').first().innerText()).trim();
    const opened = await gateway.chargebacks.retrieve(id);
    expect([opened.charge_id, opened.amount_cents, opened.reason_code, opened.status]).toEqual([
      charge.id,
      4_000,
      '4837',
      'open',
    ]);
    expect((await row.innerText()).split('\t').slice(1)).toEqual([
      charge.id,
      'R$ 40,00',
      '4837',
      'open',
      expect.any(String),
    ]);
    expect(await page.getByLabel('ID do chargeback').inputValue()).toBe(id);
    await page.getByLabel('Resultado').selectOption('lost');
    await page.getByRole('button', { name: 'Resolver' }).click();
    await page.getByRole('alertdialog').getByText(`Resolver ${id} como lost?`).waitFor();
    await page.getByRole('button', { name: 'Cancelar' }).click();
    expect((await gateway.chargebacks.retrieve(id)).status).toBe('open');
    await page.getByRole('button', { name: 'Resolver' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText(`${id}: lost.`).waitFor();
    expect((await gateway.chargebacks.retrieve(id)).status).toBe('lost');
    expect((await row.innerText()).split('\t')[4]).toBe('lost');
    await checkAndShoot('operator-chargebacks');
  });

  it("lists the movements the ledger parked, replays one and then the rest after confirmations, and the seller's balance moves", async () => {
    // Proves the parked-events page: what the ledger parked (its bug switched on for one seller) is listed
    // with its type, topic, reason and error as the API lists it; once the bug is fixed, replaying one
    // applies it (the API lists it replayed and the seller's balance moves) and "replay all" applies the
    // rest, after which nothing is parked and the balance is the seller's receivables' net.
    const tenantId = system.demo!.tenantId;
    const seller = await admin('POST', `/admin/v1/tenants/${tenantId}/sellers`, {
      name: 'Sorveteria Estacionada',
      document: generateCpf(23),
      kyc_status: 'approved',
    });
    const key = await admin('POST', '/admin/v1/api-keys', {
      tenant_id: tenantId,
      seller_id: seller.body.id,
      permissions: [...PERMISSIONS],
    });
    expect([seller.status, key.status]).toEqual([201, 201]);
    const sellerGateway = new Gateway({ apiKey: key.body.secret, baseUrl: system.url });
    faultyFor.add(seller.body.id);
    for (const amount of [10_000, 20_000])
      expect((await cardCharge(amount, {}, sellerGateway)).status).toBe('paid');
    const parkedOfSeller = async () =>
      (
        (await admin('GET', '/admin/v1/services/ledger/dead-letters?status=parked&limit=100')).body
          .data as DeadLetterItem[]
      ).filter((d) => d.key === seller.body.id);
    const parked = await waitFor(
      async () => {
        const list = await parkedOfSeller();
        return list.length >= 2 ? list : undefined;
      },
      15_000,
      "the ledger to park the seller's movements",
    );
    expect(parked).toHaveLength(2);
    // Their effect is missing until they are replayed: the seller's balance has not moved.
    expect((await sellerGateway.balance.retrieve()).pending_cents).toBe(0);
    await go('#/dead-letters');
    await page.getByRole('heading', { name: 'Eventos estacionados' }).waitFor();
    await page.getByLabel('Serviço').selectOption('ledger');
    for (const d of parked) {
      expect(d).toMatchObject({
        consumer: 'movements',
        event_type: MOVED,
        reason: 'handler_failed',
        error: `Error: ${FAULT}`,
        status: 'parked',
      });
      const cells = (await page.getByTestId(`dead-letter-${d.id}`).innerText()).split('\t');
      expect(cells.slice(1, 8)).toEqual([
        d.event_type,
        `${d.topic} · ${d.partition} · ${d.offset}`,
        'movements',
        'handler_failed',
        d.error,
        d.event_id,
        'parked',
      ]);
    }
    await checkAndShoot('operator-dead-letters');

    faultyFor.delete(seller.body.id); // the fix deployed
    const oldest = parked[parked.length - 1]!;
    await page.getByRole('button', { name: `Reprocessar ${oldest.event_id}` }).click();
    await page
      .getByRole('alertdialog')
      .getByText(`Reprocessar o evento ${oldest.event_id}?`)
      .waitFor();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText(`${oldest.event_id}: replayed.`).waitFor();
    await page.getByTestId(`dead-letter-${oldest.id}`).waitFor({ state: 'detached' });
    const replayed = (
      await admin('GET', '/admin/v1/services/ledger/dead-letters?status=replayed&limit=100')
    ).body.data as DeadLetterItem[];
    expect(replayed.find((d) => d.id === oldest.id)?.status).toBe('replayed');
    expect((await parkedOfSeller()).map((d) => d.id)).toEqual([parked[0]!.id]);
    const afterOne = (await sellerGateway.balance.retrieve()).pending_cents;
    expect(afterOne).toBeGreaterThan(0);

    await page.getByRole('button', { name: 'Reprocessar todos' }).click();
    await page
      .getByRole('alertdialog')
      .getByText(
        'Reprocessar todos os eventos estacionados de ledger, do mais antigo ao mais novo?',
      )
      .waitFor();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('1 reprocessado(s), 0 ainda estacionado(s).').waitFor();
    await page.getByText('Nenhum evento.').waitFor();
    expect(await parkedOfSeller()).toEqual([]);
    const pending = (await sellerGateway.receivables.list({ status: 'pending', limit: 100 })).data;
    const balance = await sellerGateway.balance.retrieve();
    expect(balance.pending_cents).toBe(pending.reduce((sum, r) => sum + r.net_amount_cents, 0));
    expect(balance.pending_cents).toBeGreaterThan(afterOne);
    expect(outside).toEqual([]);
  });
});
