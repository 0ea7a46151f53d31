// End-to-end test of the documentation under /docs: a real `skygate serve` on free
// loopback ports with a fresh data directory, driven through Debian's Chromium by
// playwright-core. It opens the Getting started guide, follows the navigation to the
// partner API reference (Swagger UI on /openapi/partner.json: partner operations only,
// "Authorize" with the client-credentials flow, which fetches a real token with the
// demo client), a problem page, the webhook event catalog and the admin reference, and
// takes a screenshot of each into the directory it prints first. Steps run in order;
// the first failure skips the rest. The last line is "N passed, N failed, N skipped".
//
//   node e2e/docs.e2e.mjs            builds ./cmd/skygate with the race detector and runs it
//   SKYGATE_E2E_BIN=/path/skygate …  runs that binary instead
//   SKYGATE_E2E_ARTIFACTS=dir        screenshots (under dir/docs) and the server log
//   CHROMIUM=/usr/bin/chromium       the browser (default)

import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { assert, finish, runSteps, startServer as startSkygate } from './lib.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'skygate-docs-e2e-'));
const artifacts = join(process.env.SKYGATE_E2E_ARTIFACTS ? resolve(process.env.SKYGATE_E2E_ARTIFACTS) : join(work, 'artifacts'), 'docs');
mkdirSync(artifacts, { recursive: true });
console.log(`screenshots: ${artifacts}`);

async function startServer() {
  const server = await startSkygate({ repo, work, artifacts });
  const m = server.stdout().match(/client_id=(\S+) client_secret=(\S+)/);
  return { ...server, demo: { clientID: m[1], secret: m[2] } };
}

const results = [];

async function run(server) {
  const { base } = server;
  const context = await chromium.launchPersistentContext(join(work, 'chromium-profile'), {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    baseURL: base,
    viewport: { width: 1280, height: 900 },
  });
  context.setDefaultTimeout(30_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) {
      problems.push(`${page.url()}: console error: ${m.text()}`);
    }
  });
  page.on('pageerror', (e) => problems.push(`${page.url()}: uncaught: ${e.message}`));
  const foreign = [];
  context.on('request', (req) => {
    const u = new URL(req.url());
    if (u.protocol === 'data:') return;
    if (u.origin !== base) foreign.push(req.url());
  });
  const snap = (name) => page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
  const nav = page.getByRole('navigation', { name: 'Documentation' });

  const steps = [
    ['/docs opens on the Getting started guide', async () => {
      const resp = await page.goto('/docs');
      assert(resp.status() === 200, `GET /docs answered ${resp.status()}`);
      await page.locator('h1', { hasText: 'Getting started' }).waitFor();
      for (const label of ['Getting started', 'API reference', 'Webhook events', 'Problems', 'Admin reference']) {
        await nav.getByRole('link', { name: label }).waitFor();
      }
      assert((await nav.locator('[aria-current="page"]').textContent()) === 'Getting started', 'current entry');
      assert((await page.locator('script').count()) === 0, 'the guide has a script');
      await page.getByRole('heading', { name: '5. Pick a slot and get a quote' }).waitFor();
      await page.getByRole('heading', { name: '6. Book a fast-track over mutual TLS' }).waitFor();
      assert(await page.getByText('$PKI/client-key.pem').first().isVisible(), 'the guide names the certificate files');
      await snap('01-getting-started');
    }],
    ['the API reference renders the partner operations only', async () => {
      await nav.getByRole('link', { name: 'API reference' }).click();
      await page.waitForURL('**/docs/reference');
      await page.locator('.swagger-ui .info .title').getByText('Skygate B2B API').waitFor();
      for (const tag of ['identity', 'catalog', 'booking', 'esim', 'webhooks', 'events']) {
        await page.locator('.opblock-tag', { hasText: new RegExp(`^${tag}`) }).first().waitFor();
      }
      assert((await page.locator('.opblock-tag', { hasText: /^(admin|operations)/ }).count()) === 0, 'admin or operations tag shown');
      const text = await page.locator('#swagger-ui').textContent();
      for (const bad of ['/api/v1/admin', '/api/v1/auth/idp', '/metrics', 'SKYGATE_', 'proxy']) {
        assert(!text.includes(bad), `the partner reference shows ${bad}`);
      }
      await page.locator('.opblock-summary-path', { hasText: '/v2/b2b/booking/fast-tracks' }).first().waitFor();
      for (const path of ['/api/v1/b2b/events', '/api/v1/b2b/webhooks/{webhookID}/recover']) {
        await page.locator('.opblock-summary-path', { hasText: path }).first().waitFor();
      }
      await snap('02-reference');
    }],
    ['"Authorize" offers the client-credentials flow and fetches a token', async () => {
      await page.locator('.swagger-ui .auth-wrapper .authorize').click();
      const dialog = page.locator('.swagger-ui .dialog-ux .modal-ux');
      await dialog.waitFor();
      await dialog.getByText('clientCredentials').first().waitFor();
      await dialog.getByText('/oauth/v2/token').first().waitFor();
      assert(!(await dialog.textContent()).includes('employee'), 'the employee scheme is offered');
      await snap('03-authorize');
      await dialog.locator('input[type="text"]').first().fill(server.demo.clientID);
      await dialog.locator('input[type="password"]').first().fill(server.demo.secret);
      const [resp] = await Promise.all([
        page.waitForResponse((r) => new URL(r.url()).pathname === '/oauth/v2/token'),
        dialog.locator('.auth-btn-wrapper button.authorize').first().click(),
      ]);
      assert(resp.status() === 200, `token endpoint answered ${resp.status()}`);
      await dialog.locator('button', { hasText: 'Logout' }).first().waitFor();
      await snap('04-authorized');
      await dialog.locator('.close-modal').first().click();
    }],
    ['a problem page explains a code', async () => {
      await nav.getByRole('link', { name: 'Problems' }).click();
      await page.waitForURL('**/docs/problems/');
      await page.getByRole('link', { name: 'InvalidBookingStatus' }).click();
      await page.waitForURL('**/docs/problems/InvalidBookingStatus');
      await page.locator('h1', { hasText: 'InvalidBookingStatus' }).waitFor();
      await page.getByRole('heading', { name: 'How to fix it' }).waitFor();
      await page.getByText('booking_status').first().waitFor();
      await snap('05-problem');
    }],
    ['the event catalog lists every event with its schema', async () => {
      await nav.getByRole('link', { name: 'Webhook events' }).click();
      await page.waitForURL('**/docs/events');
      for (const type of ['booking.status.changed', 'pass.status.changed', 'esim.order.completed',
        'esim.usage.threshold', 'esim.status.changed', 'webhook.test', 'webhook.subscription.disabled']) {
        await page.getByRole('heading', { name: type, exact: true }).waitFor();
      }
      for (const section of ['Versions and livemode', 'Delivery, retries and ordering', 'Choosing event types',
        'Recovering missed events', 'When a subscription is disabled', 'Following the event stream']) {
        await page.getByRole('heading', { name: section, exact: true }).waitFor();
      }
      await page.getByText('next_cursor').first().waitFor();
      await page.getByText('standardwebhooks').first().waitFor();
      await snap('06-events');
    }],
    ['the admin reference renders the whole document', async () => {
      await nav.getByRole('link', { name: 'Admin reference' }).click();
      await page.waitForURL('**/docs/admin');
      await page.locator('.opblock-tag', { hasText: /^admin/ }).first().waitFor();
      await snap('07-admin-reference');
    }],
    ['no CSP violation, script error or request to another origin', async () => {
      assert(foreign.length === 0, `requests to other origins: ${foreign.join(', ')}`);
      assert(problems.length === 0, problems.join('\n'));
    }],
  ];

  await runSteps(steps, { page, artifacts, results, logFile: server.logFile });
  await context.close();
}

let crashed = null;
try {
  const server = await startServer();
  console.log(`server at ${server.base}`);
  try {
    await run(server);
  } finally {
    await server.stop();
  }
} catch (err) {
  crashed = err;
  console.log(`FAIL setup: ${err?.stack ?? err}`);
}
for (const d of ['skygate', 'data', 'chromium-profile']) rmSync(join(work, d), { recursive: true, force: true });
finish(results, crashed, artifacts, 'screenshots');
