// End-to-end test of the employee console and /docs: a real `skygate serve` on free
// loopback ports with a fresh data directory, driven through Debian's Chromium by
// playwright-core (no browser download). Steps run in order, each depending on the
// ones before; the first failure skips the rest. The last line is
// "N passed, N failed, N skipped".
//
//   node e2e/console.e2e.mjs            builds ./cmd/skygate with the race detector and runs it
//   SKYGATE_E2E_BIN=/path/skygate …     runs that binary instead
//   SKYGATE_E2E_URL=http://…            uses a server that is already running
//   SKYGATE_E2E_ARTIFACTS=dir           screenshots and the server log go there
//                                       (default web/console/e2e/screenshots, git-ignored:
//                                       CI keeps it as an artifact; the test prints the path)
//   CHROMIUM=/usr/bin/chromium          the browser (default)

import { execFileSync } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer as createHTTPServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { assert, finish, runSteps, startServer as startSkygate } from './lib.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'skygate-e2e-'));
// Every step leaves a screenshot here, and the server its log; the default directory is
// emptied first, so that what CI keeps is this run's.
const artifacts = resolve(process.env.SKYGATE_E2E_ARTIFACTS || join(repo, 'web', 'console', 'e2e', 'screenshots'));
if (!process.env.SKYGATE_E2E_ARTIFACTS) rmSync(artifacts, { recursive: true, force: true }); // never a directory we were given
mkdirSync(artifacts, { recursive: true });
console.log(`screenshots and the server log: ${artifacts}`);
const STEP_TIMEOUT = 30_000;

async function startServer() {
  if (process.env.SKYGATE_E2E_URL) return { base: process.env.SKYGATE_E2E_URL.replace(/\/$/, ''), stop: async () => {}, raceReported: null };
  return startSkygate({ repo, work, artifacts });
}

// Token endpoint calls made by the test itself, to prove what the console showed works.
async function clientCredentials(base, clientID, secret) {
  const r = await fetch(base + '/oauth/v2/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientID, client_secret: secret }),
  });
  return { status: r.status, body: await r.json().catch(() => ({})) };
}

// mtls calls a booking route on the mutual-TLS listener with the development client
// certificate (SKYGATE_DATA_DIR/pki), as a partner would, or with identity's
// { cert, key } (PEM) when given.
function mtls(server, method, path, token, body, headers = {}, identity = null) {
  const pki = join(server.dataDir, 'pki');
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((ok, fail) => {
    const req = httpsRequest(
      server.mtlsBase + path,
      {
        method,
        ca: readFileSync(join(pki, 'ca.pem')),
        cert: identity?.cert ?? readFileSync(join(pki, 'client.pem')),
        key: identity?.key ?? readFileSync(join(pki, 'client-key.pem')),
        headers: {
          Authorization: `Bearer ${token}`,
          ...(payload ? { 'Content-Type': 'application/json' } : {}),
          ...headers,
        },
      },
      (res) => {
        let data = '';
        res.on('data', (c) => (data += c));
        res.on('end', () => {
          let json = {};
          try {
            json = JSON.parse(data);
          } catch {
            // not JSON
          }
          ok({ status: res.statusCode, body: json });
        });
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
}

// demoCredentials reads the demo application that a development start prints to
// stdout (never to the JSON log), which the server log file receives too.
function demoCredentials(server) {
  const line = /^Demo client \(development only\): account_id=(\S+) client_id=(\S+) client_secret=(\S+)$/m;
  const m = readFileSync(server.logFile, 'utf8').match(line);
  if (m) return { account_id: m[1], client_id: m[2], client_secret: m[3] };
  throw new Error('the server printed no demo application');
}

// partnerBooking books the first fast-track of the catalog for the demo account and
// takes it to Confirmed, the state in which an employee records that the pass was used.
async function partnerBooking(server) {
  const demo = demoCredentials(server);
  const tok = await clientCredentials(server.base, demo.client_id, demo.client_secret);
  assert(tok.status === 200, `demo token: ${tok.status} ${JSON.stringify(tok.body)}`);
  const token = tok.body.access_token;
  const cat = await fetch(server.base + '/v2/catalog/fast-tracks?limit=1', { headers: { Authorization: `Bearer ${token}` } });
  const ft = (await cat.json()).data?.[0];
  assert(ft, 'the catalog has no fast-track');
  const day = new Date(Date.now() + 30 * 86400_000).toISOString().slice(0, 10);
  const created = await mtls(server, 'POST', '/v2/b2b/booking/fast-tracks', token, {
    fast_track_id: ft.id,
    service_date: day,
    // The demo account has a price list, so the flight's local time is required.
    flight: { number: 'HY601', direction: 'departure', scheduled_at: `${day}T12:00` },
    passengers: [{
      first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1985-12-10', passport_number: 'AB1234567',
      nationality: 'GB', email: 'ada@example.com', phone: '+447700900123',
    }],
    partner_reference: 'E2E-1',
  }, { 'Idempotency-Key': `e2e-${Date.now()}` });
  assert(created.status === 202, `booking: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.id;
  for (let i = 0; ; i++) {
    const b = await mtls(server, 'GET', `/v2/b2b/booking/fast-tracks/${id}`, token);
    if (b.body.status === 'Issued') break;
    assert(i < 50 && b.body.status === 'Pending', `booking stuck in ${b.body.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const confirmed = await mtls(server, 'POST', `/v2/b2b/booking/fast-tracks/${id}/confirm`, token);
  assert(confirmed.body.status === 'Confirmed', `confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return { id, accountID: demo.account_id, fastTrackName: ft.name };
}

// partner calls the plain listener as a partner application with token.
async function partner(server, method, path, token, body, headers = {}) {
  const r = await fetch(server.base + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: await r.json().catch(() => ({})) };
}

// iccid returns a random valid ICCID (19 digits, Luhn check digit), in the test range 8999.
function iccid() {
  let payload = '8999';
  while (payload.length < 18) payload += Math.floor(Math.random() * 10);
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    let d = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return payload + ((10 - (sum % 10)) % 10);
}

// webhookReceiver is a partner's webhook endpoint on a free loopback port: it answers
// every delivery with its status (204 until a step changes it) and remembers the event
// types.
async function webhookReceiver() {
  const types = [];
  const rc = { status: 204 };
  const srv = createHTTPServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      try {
        types.push(JSON.parse(data).type);
      } catch {
        // not JSON
      }
      res.writeHead(rc.status).end();
    });
  });
  await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
  return Object.assign(rc, { url: `http://127.0.0.1:${srv.address().port}/hook`, types, close: () => new Promise((ok) => srv.close(ok)) });
}

const results = [];

async function main() {
  const server = await startServer();
  const { base } = server;
  console.log(`server at ${base}`);
  try {
    await run(server);
  } finally {
    await server.stop();
  }
  if (server.raceReported) {
    const name = 'the server (built with -race) reported no data race';
    const raced = server.raceReported();
    results.push({ name, outcome: raced ? 'failed' : 'passed' });
    console.log(raced ? `FAIL ${name}\n     server log: ${server.logFile}` : `ok   ${name}`);
  }
}

async function run(server) {
  const { base } = server;
  // A fresh profile every run; playwright-core drives the system's Chromium.
  const context = await chromium.launchPersistentContext(join(work, 'chromium-profile'), {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    baseURL: base,
    viewport: { width: 1280, height: 900 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  context.setDefaultTimeout(STEP_TIMEOUT);
  const page = context.pages()[0] ?? (await context.newPage());

  // Everything the browser reports: CSP violations, script errors, foreign requests.
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
    if (!['http:', 'https:'].includes(u.protocol)) return; // data:, blob:
    if (u.origin !== base) foreign.push(req.url());
  });

  // snap keeps a screenshot of an intermediate state.
  const snap = async (name) => {
    await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
  };
  const receiver = await webhookReceiver();
  const state = { accountName: `E2E Travel ${Date.now().toString(36)}` };
  const steps = [
    ['the console answers with a strict CSP and shows the sign-in page', async () => {
      const resp = await page.goto('/admin/');
      assert(resp.status() === 200, `GET /admin/ answered ${resp.status()}`);
      const csp = resp.headers()['content-security-policy'] ?? '';
      assert(csp.includes("script-src 'self'") && !csp.includes('unsafe'), `weak CSP: ${csp}`);
      await page.getByTestId('sign-in').waitFor();
    }],
    ['a refused sign-in (access_denied) is explained', async () => {
      await page.getByTestId('sign-in').click();
      await page.waitForURL((u) => !u.pathname.startsWith('/admin/'));
      await snap('dev-idp');
      await page.getByRole('button', { name: /Cancel/ }).click();
      await page.getByText('No access.').waitFor();
      assert(new URL(page.url()).search === '', `the code/error stayed in the address bar: ${page.url()}`);
    }],
    ['an employee signs in through the dev IdP (PKCE)', async () => {
      await page.getByTestId('sign-in').click();
      await page.waitForURL((u) => !u.pathname.startsWith('/admin/'));
      await page.locator('button[name="employee"][value="alice"]').click();
      await page.waitForURL('**/admin/accounts');
      const who = await page.getByTestId('employee').textContent();
      assert(/alice/i.test(who ?? ''), `signed-in employee shown as ${who}`);
    }],
    ['an account is created', async () => {
      const form = page.getByTestId('create-account');
      await form.getByRole('textbox').fill(state.accountName);
      await form.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL('**/admin/accounts/*');
      await page.getByText(`Account ${state.accountName} created`).waitFor();
      state.accountID = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
      assert(/^[0-9a-f-]{36}$/.test(state.accountID), `account id ${state.accountID}`);
      assert((await page.getByTestId('account-status').textContent()) === 'active', 'new account is not active');
    }],
    ['invalid input shows the problem detail and field errors', async () => {
      const form = page.getByTestId('create-application');
      await form.getByLabel('Name').fill('   '); // passes the browser's required, not the server
      await form.getByRole('checkbox', { name: /Catalog: lounges/ }).check();
      await form.getByRole('button', { name: 'Create application' }).click();
      await form.locator('.alert-error').waitFor();
      const text = await form.locator('.alert-error').textContent();
      assert(/name/.test(text ?? ''), `error box does not name the field: ${text}`);
    }],
    ['an application is created and its secret is shown once', async () => {
      const form = page.getByTestId('create-application');
      await form.getByLabel('Name').fill('Booking website');
      await form.getByRole('checkbox', { name: /Catalog: fast-tracks/ }).check();
      await form.getByRole('checkbox', { name: /Sandbox/ }).check();
      await form.getByRole('button', { name: 'Create application' }).click();
      const panel = page.getByTestId('secret-panel');
      await panel.waitFor();
      assert(/shown only this once/.test((await panel.textContent()) ?? ''), 'no one-time warning');
      await snap('secret-panel');
      state.clientID = await panel.getByTestId('client-id').inputValue();
      state.secret = await panel.getByTestId('client-secret').inputValue();
      assert(state.secret.startsWith('sks_'), `secret ${state.secret.slice(0, 6)}…`);
      await panel.getByRole('button', { name: 'Copy secret' }).click();
      await panel.getByRole('button', { name: 'Copied' }).waitFor();
      const tok = await clientCredentials(base, state.clientID, state.secret);
      assert(tok.status === 200 && tok.body.access_token, `the shown secret gets no token: ${tok.status} ${JSON.stringify(tok.body)}`);
      await panel.getByRole('button', { name: 'I have stored the secret' }).click();
      assert((await page.getByTestId('secret-panel').count()) === 0, 'secret panel still shown');
      assert(!(await page.content()).includes(state.secret), 'the secret is still in the page');
      const row = page.getByTestId('applications').locator('tr', { hasText: state.clientID });
      await row.waitFor();
      assert(/sandbox/.test((await row.textContent()) ?? ''), 'application row lacks the sandbox badge');
    }],
    ['the secret is rotated with a day’s grace: both work, the page shows until when', async () => {
      const row = page.getByTestId('applications').locator('tr', { hasText: state.clientID });
      await row.getByRole('button', { name: 'Rotate secret' }).click();
      const dialog = page.locator('dialog[open]');
      const grace = dialog.getByTestId('grace-period');
      assert((await grace.inputValue()) === '86400', `default grace period ${await grace.inputValue()}, want a day`);
      await dialog.getByRole('button', { name: 'Rotate secret' }).click();
      const panel = page.getByTestId('secret-panel');
      await panel.waitFor();
      const fresh = await panel.getByTestId('client-secret').inputValue();
      assert(fresh.startsWith('sks_') && fresh !== state.secret, 'rotation showed no new secret');
      const old = await clientCredentials(base, state.clientID, state.secret);
      assert(old.status === 200, `old secret during the grace period answered ${old.status}`);
      const now = await clientCredentials(base, state.clientID, fresh);
      assert(now.status === 200, `new secret answered ${now.status}`);
      const previous = row.getByTestId('previous-secret');
      await previous.waitFor();
      const until = await previous.locator('time').getAttribute('datetime');
      const hours = (Date.parse(until ?? '') - Date.now()) / 3_600_000;
      assert(/previous secret valid until/.test((await previous.textContent()) ?? '') && hours > 23 && hours <= 24,
        `the row shows the previous secret valid until ${until}, want a day from now`);
      await snap('previous-secret');
      state.previousSecret = state.secret;
      state.secret = fresh;
      await panel.getByRole('button', { name: 'I have stored the secret' }).click();
    }],
    ['the secret is rotated revoking its tokens: a token from before stops working', async () => {
      const catalog = (token) => fetch(base + '/v2/catalog/fast-tracks?limit=1', { headers: { Authorization: 'Bearer ' + token } });
      const before = await clientCredentials(base, state.clientID, state.secret);
      assert(before.status === 200, `no token before the rotation: ${before.status}`);
      assert((await catalog(before.body.access_token)).status === 200, 'the token from before does not work before the rotation');
      const row = page.getByTestId('applications').locator('tr', { hasText: state.clientID });
      await row.getByRole('button', { name: 'Rotate secret' }).click();
      const dialog = page.locator('dialog[open]');
      await dialog.getByTestId('revoke-tokens').check();
      assert(await dialog.getByTestId('grace-period').isDisabled(), 'a grace period can be chosen with revoke_tokens');
      await dialog.getByRole('button', { name: 'Rotate secret' }).click();
      const panel = page.getByTestId('secret-panel');
      await panel.waitFor();
      const fresh = await panel.getByTestId('client-secret').inputValue();
      assert(fresh.startsWith('sks_') && fresh !== state.secret, 'rotation showed no new secret');
      for (const [what, secret] of [['the replaced secret', state.secret], ['the secret before it', state.previousSecret]]) {
        const refused = await clientCredentials(base, state.clientID, secret);
        assert(refused.status === 401 && refused.body.error === 'invalid_client', `${what} after the revoking rotation answered ${refused.status}`);
      }
      // The list reloads after the rotation: the previous secret's line goes away.
      await row.getByTestId('previous-secret').waitFor({ state: 'detached' });
      await row.getByTestId('secrets').getByText('current').waitFor();
      const revoked = await catalog(before.body.access_token);
      assert(revoked.status === 401, `the token from before the revoking rotation answered ${revoked.status}`);
      const now = await clientCredentials(base, state.clientID, fresh);
      assert(now.status === 200 && (await catalog(now.body.access_token)).status === 200, 'a token of the new secret does not work');
      state.secret = fresh;
      await panel.getByRole('button', { name: 'I have stored the secret' }).click();
    }],
    ['a partner’s own client certificate is issued from its CSR and binds the application', async () => {
      if (!server.dataDir) return; // an external server: no client CA to book against
      // The partner makes its key and CSR; only the CSR reaches the console.
      const dir = mkdtempSync(join(work, 'partner-'));
      const keyFile = join(dir, 'partner-key.pem');
      execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
        '-subj', '/CN=partner', '-keyout', keyFile, '-out', join(dir, 'partner.csr')], { stdio: 'pipe' });
      const csr = readFileSync(join(dir, 'partner.csr'), 'utf8');
      const partnerKey = readFileSync(keyFile, 'utf8');

      const form = page.getByTestId('create-application');
      await form.getByLabel('Name').fill('Partner with its own certificate');
      await form.getByRole('checkbox', { name: /Fast-track bookings: read/ }).check();
      await form.getByRole('button', { name: 'Create application' }).click();
      const secretPanel = page.getByTestId('secret-panel');
      await secretPanel.waitFor();
      const clientID = await secretPanel.getByTestId('client-id').inputValue();
      const secret = await secretPanel.getByTestId('client-secret').inputValue();
      await secretPanel.getByRole('button', { name: 'I have stored the secret' }).click();
      const row = page.getByTestId('applications').locator('tr', { hasText: clientID });
      await row.getByRole('button', { name: 'Client certificate' }).click();

      const certForm = page.getByTestId('certificate-form');
      const pemField = certForm.getByLabel('CSR or certificate (PEM)');
      await pemField.fill('not a certificate signing request');
      await certForm.getByRole('button', { name: 'Issue and bind' }).click();
      await certForm.locator('.alert-error').waitFor();
      const problem = (await certForm.locator('.alert-error').textContent()) ?? '';
      assert(/csr/.test(problem) && /PEM/.test(problem), `the refused CSR's error: ${problem}`);
      await pemField.fill(csr);
      await certForm.getByRole('button', { name: 'Issue and bind' }).click();
      const panel = page.getByTestId('certificate-panel');
      await panel.waitFor();
      await snap('certificate-panel');
      const pem = await panel.getByTestId('certificate-pem').inputValue();
      const cert = new X509Certificate(pem);
      assert(cert.checkPrivateKey(createPrivateKey(partnerKey)), 'the certificate is not for the partner’s key');
      assert(cert.subject.includes(`CN=${clientID}`) && !cert.ca, `subject ${cert.subject}, CA ${cert.ca}`);
      const sha256 = ((await panel.getByTestId('certificate-sha256').textContent()) ?? '').trim();
      assert(sha256 === cert.fingerprint256.replaceAll(':', '').toLowerCase(), `shown sha256 ${sha256}, certificate ${cert.fingerprint256}`);
      const notAfter = ((await panel.getByTestId('certificate-not-after').locator('code').textContent()) ?? '').trim();
      assert(new Date(notAfter).getTime() === new Date(cert.validTo).getTime(), `shown not_after ${notAfter}, certificate ${cert.validTo}`);
      const x5t = Buffer.from(sha256, 'hex').toString('base64url');
      assert(((await panel.getByTestId('certificate-binding').textContent()) ?? '').trim() === x5t, 'the binding shown is not the certificate’s x5t#S256');
      await row.getByTestId('certificate-bound').waitFor();
      assert((await row.getByTestId('certificate-bound').getAttribute('title')) === x5t, 'the application row does not show the new binding');
      await panel.getByRole('button', { name: 'Copy certificate' }).click();
      await panel.getByRole('button', { name: 'Copied' }).waitFor();
      assert((await page.evaluate(() => navigator.clipboard.readText())) === pem, 'the copied certificate differs');
      const [download] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('certificate-download').click()]);
      assert(readFileSync(await download.path(), 'utf8') === pem, 'the downloaded certificate differs');

      // It works: the application's token books with the partner's certificate and key,
      // and the shared development certificate no longer does.
      const tok = await clientCredentials(base, clientID, secret);
      assert(tok.status === 200, `token: ${tok.status} ${JSON.stringify(tok.body)}`);
      const mine = await mtls(server, 'GET', '/v2/b2b/booking/fast-tracks', tok.body.access_token, undefined, {}, { cert: pem, key: partnerKey });
      assert(mine.status === 200, `booking list with the issued certificate: ${mine.status} ${JSON.stringify(mine.body)}`);
      const shared = await mtls(server, 'GET', '/v2/b2b/booking/fast-tracks', tok.body.access_token);
      assert(shared.status === 401 && shared.body.code === 'ClientCertificateRequired',
        `booking list with the development certificate: ${shared.status} ${JSON.stringify(shared.body)}`);

      await panel.getByRole('button', { name: 'Done' }).click();
      await row.getByRole('button', { name: 'Delete' }).click();
      await page.locator('dialog[open]').getByRole('button', { name: 'Delete application' }).click();
      await row.waitFor({ state: 'detached' });
    }],
    ['an eSIM application is created in the console', async () => {
      const form = page.getByTestId('create-application');
      await form.getByLabel('Name').fill('eSIM shop');
      for (const name of [/Catalog: eSIM packages/, /eSIM: read/, /eSIM: write/, /Webhooks: read/, /Webhooks: write/, /Sandbox/]) {
        await form.getByRole('checkbox', { name }).check();
      }
      await form.getByRole('button', { name: 'Create application' }).click();
      const panel = page.getByTestId('secret-panel');
      await panel.waitFor();
      state.esim = { clientID: await panel.getByTestId('client-id').inputValue(), secret: await panel.getByTestId('client-secret').inputValue() };
      await panel.getByRole('button', { name: 'I have stored the secret' }).click();
      const tok = await clientCredentials(base, state.esim.clientID, state.esim.secret);
      assert(tok.status === 200, `eSIM application token: ${tok.status} ${JSON.stringify(tok.body)}`);
      state.esim.token = tok.body.access_token;
      // Nothing to sell yet.
      const cat = await partner(server, 'GET', '/v2/catalog/esim/packages', state.esim.token);
      assert(cat.status === 200 && cat.body.data.length === 0, `a new account's eSIM catalog: ${cat.status} ${JSON.stringify(cat.body)}`);
    }],
    ['eSIM packages are created in four languages, edited and one retired', async () => {
      await page.getByTestId('esim-link').click();
      await page.waitForURL('**/esim');
      await page.getByText('No packages yet').waitFor();
      const create = async (names, data, price, topUp) => {
        const form = page.getByTestId('create-package');
        for (const [lang, name] of Object.entries(names)) await form.getByLabel(`Name (${lang})`).fill(name);
        await form.getByLabel('Countries (ISO codes)').fill('UZ, KZ');
        await form.getByLabel('Data (MB)').fill(String(data));
        await form.getByLabel('Validity (days)').fill('7');
        await form.getByLabel('Price').fill(price);
        if (topUp) await form.getByLabel(/Usable as a top-up/).check();
        await form.getByRole('button', { name: 'Create package' }).click();
        await page.getByText(`Package ${names.English} created.`).waitFor();
      };
      await create({ English: 'Silk Road 1 GB', Russian: 'Шёлковый путь 1 ГБ', Uzbek: 'Ipak yoʻli 1 GB', Kazakh: 'Жібек жолы 1 ГБ' }, 1000, '4.50', true);
      await create({ English: 'Steppe 3 GB', Russian: 'Степь 3 ГБ', Uzbek: 'Dasht 3 GB', Kazakh: 'Дала 3 ГБ' }, 3000, '9.00', false);
      const packages = page.getByTestId('esim-packages');
      const silk = packages.locator('tr', { hasText: 'Silk Road 1 GB' });
      const steppe = packages.locator('tr', { hasText: 'Steppe 3 GB' });
      assert(/\$4\.50/.test((await silk.textContent()) ?? ''), `the package's price: ${await silk.textContent()}`);

      await silk.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByTestId('edit-package');
      assert((await edit.getByLabel('Name (Kazakh)').inputValue()) === 'Жібек жолы 1 ГБ', 'the edit form does not hold the Kazakh name');
      await edit.getByLabel('Name (Russian)').fill('Шёлковый путь 1 ГБ+');
      await edit.getByLabel('Price').fill('5.00');
      assert((await edit.getByLabel('Refund window (days)').inputValue()) === '30', 'a new package\'s refund window is not 30 days');
      await edit.getByLabel('APN name').fill('internet.e2e');
      await edit.getByLabel('APN username').fill('e2e-user');
      await edit.getByLabel('Refund window (days)').fill('14');
      await edit.getByRole('button', { name: 'Save package' }).click();
      await page.getByText('Package Silk Road 1 GB saved.').waitFor();
      await silk.getByText('ru: Шёлковый путь 1 ГБ+').waitFor();

      // The APN and the window are stored: after a reload the table and the editor show them.
      await page.reload();
      await silk.getByTestId('package-apn').getByText('internet.e2e').waitFor();
      assert(((await silk.getByTestId('package-apn').textContent()) ?? '').includes('user e2e-user'), `the APN cell: ${await silk.getByTestId('package-apn').textContent()}`);
      assert(((await silk.getByTestId('package-refund-window').textContent()) ?? '') === '14 days', `the refund window cell: ${await silk.getByTestId('package-refund-window').textContent()}`);
      assert(((await steppe.getByTestId('package-apn').textContent()) ?? '') === 'automatic', `the APN cell of a package without one: ${await steppe.getByTestId('package-apn').textContent()}`);
      await silk.getByRole('button', { name: 'Edit' }).click();
      const again = page.getByTestId('edit-package');
      assert((await again.getByLabel('APN name').inputValue()) === 'internet.e2e', 'the edit form does not hold the APN');
      assert((await again.getByLabel('Refund window (days)').inputValue()) === '14', 'the edit form does not hold the refund window');
      await again.getByRole('button', { name: 'Cancel' }).click();

      await steppe.getByRole('button', { name: 'Retire' }).click();
      await page.locator('dialog[open]').getByRole('button', { name: 'Retire package' }).click();
      await steppe.getByTestId('package-status').getByText('retired').waitFor();
      await snap('esim-packages');

      // What the partner sees: the edited package in Russian, the retired one not at all.
      const cat = await partner(server, 'GET', '/v2/catalog/esim/packages', state.esim.token, undefined, { 'Accept-Language': 'ru' });
      const names = cat.body.data?.map((p) => p.name) ?? [];
      assert(cat.status === 200 && names.length === 1 && names[0] === 'Шёлковый путь 1 ГБ+', `the partner's catalog: ${cat.status} ${JSON.stringify(cat.body)}`);
      assert(cat.body.data[0].price.amount === 500, `the partner's price: ${JSON.stringify(cat.body.data[0].price)}`);
      assert(cat.body.data[0].refund_window_days === 14, `the partner's refund window: ${JSON.stringify(cat.body.data[0])}`);
      state.esim.packageID = cat.body.data[0].id;
    }],
    ['the pool is uploaded: a bad upload is reported per row, then CSV and a JSON file', async () => {
      const upload = page.getByTestId('pool-upload');
      const good = iccid();
      await upload.getByLabel('Profiles', { exact: true }).fill(`iccid,smdp_address,matching_id\n${good},smdp.example.com,E2E-1\n8999000000000000001,smdp.example.com,E2E-2\n`);
      await upload.getByRole('button', { name: 'Upload' }).click();
      const report = upload.getByTestId('pool-report');
      await report.waitFor();
      const row = report.locator('tbody tr').first();
      const cells = await row.locator('td').allTextContents();
      assert(cells[0] === '2' && cells[1] === 'iccid' && /line 3/.test(cells[2]), `the per-row report: ${cells.join(' | ')}`);
      await snap('esim-pool-report');
      await page.getByTestId('pool-counts').getByText('0 profiles').waitFor();

      const csv = [iccid(), iccid()];
      await upload.getByLabel('Profiles', { exact: true }).fill(`iccid,smdp_address,matching_id\n${csv.map((c, i) => `${c},smdp.example.com,E2E-CSV-${i}`).join('\n')}\n`);
      await upload.getByRole('button', { name: 'Upload' }).click();
      await upload.getByText('Imported 2 profiles.').waitFor();
      const json = JSON.stringify([{ iccid: iccid(), smdp_address: 'smdp.example.com', matching_id: 'E2E-JSON-0' }]);
      await upload.getByLabel('Profiles file').setInputFiles({ name: 'pool.json', mimeType: 'application/json', buffer: Buffer.from(json) });
      await page.waitForFunction(() => document.querySelector('[data-testid="pool-upload"] select[name="format"]')?.value === 'application/json');
      await upload.getByRole('button', { name: 'Upload' }).click();
      await upload.getByText('Imported 1 profile.').waitFor();
      await page.getByTestId('pool-counts').getByText('3 profiles').waitFor();
      await page.getByTestId('pool-counts').getByText('3 Available').waitFor();
    }],
    ['the account is credited and a refund recorded in the ledger', async () => {
      const form = page.getByTestId('credit-form');
      await form.getByLabel('Amount').fill('20.00');
      await form.getByLabel('Description').fill('Prepaid by invoice 17');
      await form.getByRole('button', { name: 'Add to the balance' }).click();
      await page.getByText('Credit of $20.00 recorded; the balance is $20.00.').waitFor();
      await form.getByLabel('Kind').selectOption('refund');
      await form.getByLabel('Amount').fill('1.50');
      await form.getByLabel('Reference').fill('goodwill-1');
      await form.getByRole('button', { name: 'Add to the balance' }).click();
      await page.getByText('Refund of $1.50 recorded; the balance is $21.50.').waitFor();
      await page.getByTestId('esim-balance').getByText('$21.50').waitFor();
      const kinds = await page.getByTestId('ledger').locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind')));
      assert(kinds.join(',') === 'refund,credit', `the ledger: ${kinds.join(',')}`);
    }],
    ['the partner orders an eSIM with the console-made application; the console shows order, usage and charge', async () => {
      const tok = state.esim.token;
      const hook = await partner(server, 'POST', '/api/v1/b2b/webhooks', tok, { url: receiver.url, secret: 'e2e-webhook-secret-0000000001' });
      assert(hook.status === 201, `webhook subscription: ${hook.status} ${JSON.stringify(hook.body)}`);
      state.webhookURL = receiver.url;
      const order = await partner(server, 'POST', '/v2/b2b/esim/orders', tok, { package_id: state.esim.packageID, quantity: 1, partner_reference: 'E2E-ESIM-1' },
        { 'Idempotency-Key': `e2e-esim-${Date.now()}` });
      assert(order.status === 201, `order: ${order.status} ${JSON.stringify(order.body)}`);
      const esim = order.body.esims[0];
      assert(esim.activation_code.startsWith('LPA:1$smdp.example.com$'), `activation code ${esim.activation_code}`);
      for (const [step, body] of [['install'], ['activate'], ['usage', { used_mb: 100 }]]) {
        const r = await partner(server, 'POST', `/v2/sandbox/esims/${esim.iccid}/${step}`, tok, body);
        assert(r.status === 200, `sandbox ${step}: ${r.status} ${JSON.stringify(r.body)}`);
      }
      await page.reload();
      const o = page.getByTestId('esim-orders').locator(`tr[data-order-id="${order.body.id}"]`);
      await o.waitFor();
      const text = (await o.textContent()) ?? '';
      assert(/E2E-ESIM-1/.test(text) && /\$5\.00/.test(text) && /Silk Road 1 GB/.test(text), `the order row: ${text}`);
      const e = page.getByTestId('esims').locator(`tr[data-iccid="${esim.iccid}"]`);
      await e.getByText('Active').waitFor();
      assert(((await e.getByTestId('esim-usage').textContent()) ?? '').includes('100 of 1000 MB used'), `usage: ${await e.textContent()}`);
      await page.getByTestId('esim-balance').getByText('$16.50').waitFor();
      await page.getByTestId('ledger').locator('tr[data-kind="charge"]').waitFor();
      await page.getByTestId('pool-counts').getByText('1 Assigned').waitFor();
      const whole = (await page.locator('main').textContent()) ?? '';
      assert(!whole.includes(esim.activation_code) && !whole.includes('E2E-JSON-0') && !whole.includes('E2E-CSV-'), 'the console shows a profile secret');
      await snap('esim');
      await page.getByTestId('esims').getByLabel('eSIM status').selectOption('Depleted');
      await page.getByText('No Depleted eSIMs.').waitFor();
    }],
    ['fast-track prices are set on the account page and survive a reload', async () => {
      await page.goto(`/admin/accounts/${encodeURIComponent(state.accountID)}`);
      const section = page.getByTestId('fast-track-prices');
      await section.getByTestId('prices-updated').getByText(/Never set/).waitFor();
      const row = section.locator('tbody tr').first();
      state.pricedFastTrack = await row.getAttribute('data-fast-track-id');
      await row.getByRole('textbox', { name: /^Currency of / }).fill('USD');
      await row.getByRole('textbox', { name: /^Adult price of / }).fill('35.00');
      await row.getByRole('textbox', { name: /^Child price of / }).fill('20.5');
      await section.getByRole('button', { name: 'Save prices' }).click();
      await section.getByText('Prices saved: 1 fast-track priced.').waitFor();
      await page.reload();
      const again = page.getByTestId('fast-track-prices').locator(`tr[data-fast-track-id="${state.pricedFastTrack}"]`);
      await page.getByTestId('prices-updated').getByText(/Updated .* 1 of \d+ fast-tracks priced/).waitFor();
      const values = await Promise.all(['Currency', 'Adult price', 'Child price', 'Infant price'].map((l) =>
        again.getByRole('textbox', { name: new RegExp(`^${l} of `) }).inputValue()));
      assert(values.join(' ') === 'USD 35.00 20.50 35.00', `after a reload the row shows ${values.join(' ')}, want USD 35.00 20.50 35.00 (infant = adult)`);
      const others = await page.getByTestId('fast-track-prices').locator('tbody tr').count();
      assert(others > 1, `the price table lists ${others} fast-tracks`);
      await snap('fast-track-prices');
    }],
    ['an invalid price is refused and its problem shown next to the field', async () => {
      const section = page.getByTestId('fast-track-prices');
      const row = section.locator(`tr[data-fast-track-id="${state.pricedFastTrack}"]`);
      const currency = row.getByRole('textbox', { name: /^Currency of / });
      await currency.fill('usd');
      await section.getByRole('button', { name: 'Save prices' }).click();
      await section.locator('.alert-error').waitFor();
      assert((await currency.getAttribute('aria-invalid')) === 'true', 'the currency field is not marked invalid');
      const problem = page.locator(`#${await currency.getAttribute('aria-describedby')}`);
      assert(/ISO 4217/.test((await problem.textContent()) ?? ''), `the currency's problem reads ${await problem.textContent()}`);
      assert(await row.locator('.field-problem', { hasText: 'ISO 4217' }).count() === 1, 'the problem is not in the fast-track’s row');
      await snap('fast-track-price-refused');
      await page.reload();
      const kept = page.getByTestId('fast-track-prices').locator(`tr[data-fast-track-id="${state.pricedFastTrack}"]`).getByRole('textbox', { name: /^Currency of / });
      assert((await kept.inputValue()) === 'USD', 'the refused list changed the stored one');
    }],
    ['a capacity per slot is set on the fast-tracks page and shown overridden', async () => {
      await page.getByRole('link', { name: 'Fast-tracks', exact: true }).click();
      await page.waitForURL('**/admin/fast-tracks');
      const table = page.getByTestId('capacities');
      const row = table.locator('tbody tr').last();
      const id = await row.getAttribute('data-fast-track-id');
      await row.getByTestId('capacity-source').getByText('catalog').waitFor();
      await row.getByRole('spinbutton', { name: /^Capacity per slot of / }).fill('150');
      await row.getByRole('button', { name: 'Save' }).click();
      await row.getByTestId('capacity-source').getByText('overridden').waitFor();
      await page.reload();
      const again = page.getByTestId('capacities').locator(`tr[data-fast-track-id="${id}"]`);
      await again.getByTestId('capacity-source').getByText('overridden').waitFor();
      const value = await again.getByRole('spinbutton', { name: /^Capacity per slot of / }).inputValue();
      assert(value === '150', `after a reload the capacity is ${value}, want 150`);
      await snap('capacities');
    }],
    ['a capacity override is reset to the catalog’s on the fast-tracks page', async () => {
      const row = page.getByTestId('capacities').locator('tbody tr').last();
      const id = await row.getAttribute('data-fast-track-id');
      await row.getByTestId('capacity-source').getByText('overridden').waitFor();
      await row.getByRole('button', { name: 'Reset to catalog' }).click();
      await row.getByTestId('capacity-source').getByText('catalog').waitFor();
      await page.getByText(/back to the catalog’s \d+ places per slot/).waitFor();
      assert(await row.getByRole('button', { name: 'Reset to catalog' }).isHidden(), 'the reset button shows on a row without an override');
      await page.reload();
      const again = page.getByTestId('capacities').locator(`tr[data-fast-track-id="${id}"]`);
      await again.getByTestId('capacity-source').getByText('catalog').waitFor();
      const value = await again.getByRole('spinbutton', { name: /^Capacity per slot of / }).inputValue();
      const catalog = ((await again.locator('td').nth(2).textContent()) ?? '').trim();
      assert(value === catalog, `after the reset the capacity is ${value}, want the catalog’s ${catalog}`);
      await snap('capacity-reset');
    }],
    ['the account page shows the webhook subscription and its deliveries', async () => {
      await page.goto(`/admin/accounts/${encodeURIComponent(state.accountID)}`);
      const hook = page.getByTestId('webhook');
      await hook.getByText(state.webhookURL).waitFor();
      await hook.getByTestId('webhook-status').getByText('active').waitFor();
      // The dispatcher delivers within a few seconds: reload until the order's event shows succeeded.
      for (let i = 0; ; i++) {
        const row = page.getByTestId('webhook-deliveries').locator('tr[data-event-type="esim.order.completed"][data-status="succeeded"]');
        if (await row.count()) break;
        assert(i < 40, `no succeeded esim.order.completed delivery; the receiver got ${receiver.types.join(', ')}`);
        await new Promise((r) => setTimeout(r, 250));
        await page.reload();
        await page.getByTestId('webhook').waitFor();
      }
      assert(receiver.types.includes('esim.order.completed'), `the receiver got ${receiver.types.join(', ')}`);
      await snap('webhooks');
    }],
    ['the account page says why and when Skygate disabled the subscription', async () => {
      // The endpoint answers 410 Gone: the dispatcher disables the subscription at once.
      receiver.status = 410;
      const hooks = await partner(server, 'GET', '/api/v1/b2b/webhooks', state.esim.token);
      const test = await partner(server, 'POST', `/api/v1/b2b/webhooks/${hooks.body.data[0].id}/test`, state.esim.token);
      assert(test.status === 202, `test event: ${test.status} ${JSON.stringify(test.body)}`);
      for (let i = 0; ; i++) {
        await page.reload();
        await page.getByTestId('webhook').waitFor();
        if (await page.getByTestId('webhook-disabled').count()) break;
        assert(i < 40, 'the subscription was not shown disabled');
        await new Promise((r) => setTimeout(r, 250));
      }
      await page.getByTestId('webhook-status').getByText('inactive').waitFor();
      const notice = page.getByTestId('webhook-disabled');
      const text = (await notice.textContent()) ?? '';
      assert(/^Disabled .+: the endpoint answered 410 Gone\./.test(text) && !text.includes('[object'), `the notice: ${text}`);
      assert(await notice.locator('time').count() === 1, `the notice names no time: ${text}`);
      await page.getByTestId('webhook-deliveries').locator('tr[data-event-type="webhook.test"][data-status="failed"]').waitFor();
      await snap('webhook-disabled');
      receiver.status = 204;
    }],
    ['the account is suspended and its application gets no token', async () => {
      await page.getByTestId('account-status-toggle').click();
      await snap('confirm-suspend');
      await page.locator('dialog[open]').getByRole('button', { name: 'Suspend account' }).click();
      await page.getByTestId('account-status').getByText('suspended').waitFor();
      const tok = await clientCredentials(base, state.clientID, state.secret);
      assert(tok.status === 400 && tok.body.error === 'invalid_grant', `suspended account got ${tok.status} ${tok.body.error}`);
    }],
    ['a deep link survives a reload (SPA fallback, session kept)', async () => {
      await page.reload();
      await page.getByTestId('account-status').getByText('suspended').waitFor();
      await page.getByTestId('applications').locator('tr', { hasText: state.clientID }).waitFor();
    }],
    ['the audit log shows the writes, filtered by account', async () => {
      await page.getByRole('link', { name: 'Audit log', exact: true }).first().click();
      await page.waitForURL('**/admin/audit');
      const filters = page.getByTestId('audit-filters');
      await filters.getByLabel('Account ID').fill(state.accountID);
      await filters.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL((u) => u.searchParams.get('account_id') === state.accountID);
      const table = page.getByTestId('audit-events');
      await table.waitFor();
      const actions = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
      for (const a of ['account.create', 'application.create', 'application.rotate_secret', 'account.update']) {
        assert(actions.includes(a), `audit log lacks ${a}: ${actions.join(', ')}`);
      }
      assert(/dev-alice/.test((await table.textContent()) ?? ''), 'audit log does not name the employee');
    }],
    ['bookings: an account without bookings, and an unknown booking id', async () => {
      await page.goto(`/admin/bookings?account=${encodeURIComponent(state.accountID)}`);
      await page.getByText('This account has no bookings.').waitFor();
      await page.getByTestId('find-booking').getByRole('textbox').fill('00000000-0000-4000-8000-000000000000');
      await page.getByTestId('find-booking').getByRole('button', { name: 'Open booking' }).click();
      await page.locator('.alert-error').waitFor();
    }],
    ['a partner’s confirmed booking is browsed and marked completed', async () => {
      if (!server.dataDir) return; // an external server: no partner credentials to book with
      state.booking = await partnerBooking(server);
      await page.getByRole('link', { name: 'Bookings', exact: true }).click();
      await page.getByTestId('booking-filters').getByLabel('Account').selectOption(state.booking.accountID);
      await page.waitForURL((u) => u.searchParams.get('account') === state.booking.accountID);
      await page.getByTestId('booking-filters').getByLabel('Status').selectOption('Confirmed');
      await page.waitForURL((u) => u.searchParams.get('status') === 'Confirmed');
      const listed = page.getByTestId('bookings').locator('tr', { hasText: state.booking.id });
      assert(((await listed.getByTestId('fast-track-name').textContent()) ?? '') === state.booking.fastTrackName,
        `the list names the fast-track ${await listed.getByTestId('fast-track-name').textContent()}, want ${state.booking.fastTrackName}`);
      await page.getByText('Bookings of demo.').waitFor();
      await page.getByTestId('bookings').getByRole('link', { name: state.booking.id }).click();
      await page.getByText('Ada Lovelace').waitFor();
      assert(((await page.getByTestId('booking-account').textContent()) ?? '') === 'demo', 'the booking does not name its account');
      assert(((await page.getByTestId('booking-fast-track').textContent()) ?? '') === state.booking.fastTrackName, 'the booking does not name its fast-track');
      await snap('booking');
      await page.getByRole('button', { name: /Mark as completed/ }).click();
      await page.locator('dialog[open]').getByRole('button', { name: 'Mark as completed' }).click();
      await page.getByText('The booking is now Completed.').waitFor();
      await page.locator('h1').getByText('Completed').waitFor();
      await page.goto(`/admin/audit?action=booking.complete`);
      await page.getByTestId('audit-events').locator('tr', { hasText: state.booking.id.slice(0, 8) }).waitFor();
    }],
    ['the applications are deleted', async () => {
      await page.goto(`/admin/accounts/${encodeURIComponent(state.accountID)}`);
      for (const clientID of [state.clientID, state.esim.clientID]) {
        const row = page.getByTestId('applications').locator('tr', { hasText: clientID });
        await row.getByRole('button', { name: 'Delete' }).click();
        await page.locator('dialog[open]').getByRole('button', { name: 'Delete application' }).click();
        await row.waitFor({ state: 'detached' });
      }
      await page.getByText('No applications yet.').waitFor();
    }],
    ['signing out forgets the token', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByTestId('sign-in').waitFor();
      const stored = await page.evaluate(() => sessionStorage.getItem('skygate.console.session'));
      assert(stored === null, 'token still in sessionStorage');
    }],
    ['/docs/admin renders the OpenAPI document offline', async () => {
      const resp = await page.goto('/docs/admin');
      assert(resp.status() === 200, `GET /docs/admin answered ${resp.status()}`);
      await page.locator('.swagger-ui .info .title').getByText('Skygate B2B API').waitFor();
      await page.locator('.opblock-tag', { hasText: 'admin' }).first().waitFor();
    }],
    ['no CSP violation, script error or request to another origin', async () => {
      assert(foreign.length === 0, `requests to other origins: ${foreign.join(', ')}`);
      assert(problems.length === 0, problems.join('\n'));
    }],
  ];

  await runSteps(steps, { page, artifacts, results, logFile: join(artifacts, 'server.log'), everyStep: true });
  await context.close();
  await receiver.close();
}

let crashed = null;
try {
  await main();
} catch (err) {
  crashed = err;
  console.log(`FAIL setup: ${err?.stack ?? err}`);
}
rmSync(work, { recursive: true, force: true });
finish(results, crashed, artifacts, 'screenshots and the server log');
