// End-to-end test of the hosted eSIM install page (/esim/install/{token}): a real
// `skygate serve` on free loopback ports with a fresh data directory, driven through
// Debian's Chromium by playwright-core. The development demo client orders an eSIM
// through the API, and its install.page_url is opened as an iPhone (the iOS button
// first, linking to install.ios_url), as an Android phone (the QR code and the manual
// details first, then the LPA: string as selectable text under its Settings path, no
// LPA: link) and in Russian (Accept-Language), with the QR code and the manual SM-DP+
// address and matching ID visible; then a forged token's 404 page.
// The page must load nothing from elsewhere and break no rule of its Content Security
// Policy. Steps run in order; the first failure skips the rest. The last line is
// "N passed, N failed, N skipped".
//
//   node e2e/install.e2e.mjs         builds ./cmd/skygate with the race detector and runs it
//   SKYGATE_E2E_BIN=/path/skygate …  runs that binary instead
//   SKYGATE_E2E_ARTIFACTS=dir        screenshots (under dir/install) and the server log
//   CHROMIUM=/usr/bin/chromium       the browser (default)

import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { assert, finish, runSteps, startServer as startSkygate } from './lib.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'skygate-install-e2e-'));
const artifacts = join(process.env.SKYGATE_E2E_ARTIFACTS ? resolve(process.env.SKYGATE_E2E_ARTIFACTS) : join(work, 'artifacts'), 'install');
mkdirSync(artifacts, { recursive: true });
console.log(`screenshots: ${artifacts}`);

const iPhone = {
  userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true,
};
const android = {
  userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
  viewport: { width: 412, height: 915 }, deviceScaleFactor: 2.6, isMobile: true, hasTouch: true,
};

async function startServer() {
  const server = await startSkygate({ repo, work, artifacts });
  const m = server.stdout().match(/client_id=(\S+) client_secret=(\S+)/);
  return { ...server, demo: { clientID: m[1], secret: m[2] } };
}

// api calls the server as the demo partner would and returns the decoded JSON body.
async function api(base, token, method, path, body, headers = {}) {
  const r = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  assert(r.ok, `${method} ${path} answered ${r.status}: ${text}`);
  return JSON.parse(text);
}

const results = [];

async function run(server) {
  const { base } = server;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const problems = [];
  const foreign = [];
  // open loads url in a fresh context for device, with extra request headers, and
  // watches it for CSP violations, script errors and requests to other origins.
  const open = async (name, device, url, headers = {}) => {
    const context = await browser.newContext({ ...device, extraHTTPHeaders: headers });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 404/.test(m.text())) {
        problems.push(`${name}: console error: ${m.text()}`);
      }
    });
    page.on('pageerror', (e) => problems.push(`${name}: uncaught: ${e.message}`));
    context.on('request', (req) => {
      const u = new URL(req.url());
      if (u.protocol !== 'data:' && u.origin !== base) foreign.push(req.url());
    });
    const resp = await page.goto(url);
    current = page;
    return { page, resp, context };
  };
  const snap = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
  // placeholder page for runSteps' failure screenshots until a step opens one
  const blank = await (await browser.newContext()).newPage();
  let current = blank;

  let esim;
  let pagePath;
  // visibleQR checks that the QR code is shown and decoded: the policy lets data: images in.
  const visibleQR = async (page) => {
    const qr = page.locator('#qr');
    await qr.waitFor({ state: 'visible' });
    const width = await qr.evaluate((img) => img.complete && img.naturalWidth);
    assert(width > 100, `the QR image did not load (natural width ${width})`);
  };
  const visibleManual = async (page) => {
    assert((await page.locator('#smdp').textContent()) === esim.smdp_address, 'the SM-DP+ address');
    assert((await page.locator('#matching-id').textContent()) === esim.matching_id, 'the matching ID');
    await page.locator('#smdp').waitFor({ state: 'visible' });
    await page.locator('#matching-id').waitFor({ state: 'visible' });
  };
  const firstButton = (page) => page.locator('a.button').first().getAttribute('id');

  const steps = [
    ['the demo partner orders an eSIM and gets its install links', async () => {
      const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: server.demo.clientID, client_secret: server.demo.secret });
      const r = await fetch(base + '/oauth/v2/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form });
      assert(r.status === 200, `token endpoint answered ${r.status}`);
      const { access_token: token } = await r.json();
      const packages = await api(base, token, 'GET', '/v2/catalog/esim/packages');
      const pkg = packages.data.find((p) => !p.top_up) ?? packages.data[0];
      assert(pkg, 'the demo catalog has no package');
      const order = await api(base, token, 'POST', '/v2/b2b/esim/orders', { package_id: pkg.id, quantity: 1 }, { 'Idempotency-Key': `install-e2e-${Date.now()}` });
      esim = order.esims[0];
      const { install } = esim;
      assert(install.lpa === esim.activation_code && install.android_url === esim.activation_code, 'lpa and android_url are the activation code');
      assert(install.ios_url === 'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=' + encodeURIComponent(esim.activation_code).replace(/%20/g, '+'),
        `ios_url ${install.ios_url}`);
      assert(install.page_url.startsWith(base + '/esim/install/'), `page_url ${install.page_url}`);
      pagePath = new URL(install.page_url).pathname;
    }],
    ['an iPhone gets the iOS button first, the QR code and the manual details', async () => {
      const { page, resp, context } = await open('iPhone', iPhone, esim.install.page_url);
      assert(resp.status() === 200, `page answered ${resp.status()}`);
      const h = resp.headers();
      assert(h['content-type'] === 'text/html; charset=utf-8', `Content-Type ${h['content-type']}`);
      assert(h['cache-control'] === 'no-store' && h['referrer-policy'] === 'no-referrer', 'caching and referrer headers');
      assert(/default-src 'none'/.test(h['content-security-policy']) && !/script/.test(h['content-security-policy']), `CSP ${h['content-security-policy']}`);
      await page.locator('h1', { hasText: 'Install your eSIM' }).waitFor();
      assert((await firstButton(page)) === 'ios', 'the first button is not iOS');
      const ios = page.locator('#ios');
      await ios.waitFor({ state: 'visible' });
      assert((await ios.getAttribute('href')) === esim.install.ios_url, `iOS href ${await ios.getAttribute('href')}`);
      assert((await ios.textContent()).includes('iPhone'), 'the iOS button text');
      // The stylesheet applies (its hash is in the policy): the button is a filled block.
      const bg = await ios.evaluate((a) => getComputedStyle(a).backgroundColor);
      assert(bg === 'rgb(29, 78, 216)', `the stylesheet did not apply (background ${bg})`);
      await visibleQR(page);
      await visibleManual(page);
      await page.getByText(esim.package.name).waitFor();
      assert((await page.locator('script').count()) === 0, 'the page has a script');
      await snap(page, '01-iphone');
      await context.close();
    }],
    ['an Android phone gets the QR code and the manual details first, then the code as text', async () => {
      const { page, resp, context } = await open('Android', android, esim.install.page_url);
      assert(resp.status() === 200, `page answered ${resp.status()}`);
      assert(esim.install.android_url.startsWith('LPA:1$'), 'android_url is the LPA string');
      await visibleQR(page);
      await visibleManual(page);
      const code = page.locator('#android-code');
      await code.waitFor({ state: 'visible' });
      assert((await code.textContent()) === esim.install.android_url, `the code shown is ${await code.textContent()}`);
      // Below the QR code and the manual details, in document order.
      const order = await page.evaluate(() => ['qr', 'smdp', 'android-code', 'ios'].map((id) => {
        const all = [...document.querySelectorAll('[id]')];
        return all.indexOf(document.getElementById(id));
      }));
      assert(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])), `block order ${order}`);
      // No link pretends to open Android's eSIM setup; the label names the Settings path.
      assert((await page.locator('a[href^="LPA:"]').count()) === 0, 'the LPA: string is a link');
      await page.locator('#android', { hasText: 'Settings → Network & internet → SIMs → Add eSIM' }).waitFor();
      // A tap selects the whole code (user-select: all), ready to copy.
      const select = await code.evaluate((el) => getComputedStyle(el).userSelect || getComputedStyle(el).webkitUserSelect);
      assert(select === 'all', `user-select ${select}`);
      await code.click();
      const selected = await page.evaluate(() => String(window.getSelection()));
      assert(selected === esim.install.android_url, `a tap selected ${JSON.stringify(selected)}`);
      await snap(page, '02-android');
      await context.close();
    }],
    ['Accept-Language ru gives the page in Russian', async () => {
      const { page, resp, context } = await open('Russian', iPhone, esim.install.page_url, { 'Accept-Language': 'ru-RU,ru;q=0.9,en;q=0.5' });
      assert(resp.status() === 200 && resp.headers()['content-language'] === 'ru', `Content-Language ${resp.headers()['content-language']}`);
      assert((await page.locator('html').getAttribute('lang')) === 'ru', 'html lang');
      await page.locator('h1', { hasText: 'Установите eSIM' }).waitFor();
      await page.getByText('Адрес SM-DP+').waitFor();
      await page.locator('#ios', { hasText: 'Установить на iPhone' }).waitFor();
      await visibleQR(page);
      await snap(page, '03-russian');
      await context.close();
    }],
    ['a forged token is a 404 page that shows nothing of the eSIM', async () => {
      const forged = pagePath.slice(0, -4) + (pagePath.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      const { page, resp, context } = await open('forged', android, base + forged, { 'Accept-Language': 'kk' });
      assert(resp.status() === 404, `a forged token answered ${resp.status()}`);
      await page.locator('h1', { hasText: 'Сілтеме табылмады' }).waitFor();
      assert((await page.locator('#qr, #ios, #android, #matching-id').count()) === 0, 'the 404 page shows install details');
      await snap(page, '04-not-found');
      await context.close();
    }],
    ['no CSP violation, script error or request to another origin', async () => {
      assert(foreign.length === 0, `requests to other origins: ${foreign.join(', ')}`);
      assert(problems.length === 0, problems.join('\n'));
    }],
  ];

  await runSteps(steps, { page: { screenshot: (o) => current.screenshot(o), url: () => current.url() }, artifacts, results, logFile: server.logFile });
  await browser.close();
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
  if (server.raceReported?.()) throw new Error(`the race detector reported a data race; log: ${server.logFile}`);
} catch (err) {
  crashed = err;
  console.log(`FAIL setup: ${err?.stack ?? err}`);
}
for (const d of ['skygate', 'data']) rmSync(join(work, d), { recursive: true, force: true });
finish(results, crashed, artifacts, 'screenshots');
