// Helpers the browser tests share: free ports, assertions and the step runner with its
// summary line.

import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
export function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

export function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

// runSteps runs [name, fn] steps in order, recording each outcome in results; the
// first failure skips the rest. A failing step leaves a full-page screenshot in
// artifacts, and with everyStep each step leaves step-NN.png.
export async function runSteps(steps, { page, artifacts, results, logFile, everyStep = false }) {
  let failed = false;
  for (const [name, fn] of steps) {
    if (failed) {
      results.push({ name, outcome: 'skipped' });
      console.log(`SKIP ${name}`);
      continue;
    }
    const t0 = Date.now();
    try {
      await fn();
      results.push({ name, outcome: 'passed' });
      console.log(`ok   ${name} (${Date.now() - t0} ms)`);
    } catch (err) {
      failed = true;
      results.push({ name, outcome: 'failed' });
      const shot = join(artifacts, `failure-${results.length}.png`);
      await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
      console.log(`FAIL ${name} (${Date.now() - t0} ms)\n     ${String(err?.stack ?? err).split('\n').join('\n     ')}\n     page: ${page.url()}\n     screenshot: ${shot}\n     server log: ${logFile}`);
    }
    if (everyStep) {
      await page.screenshot({ path: join(artifacts, `step-${String(results.length).padStart(2, '0')}.png`), fullPage: true }).catch(() => {});
    }
  }
}

// finish writes results.json into artifacts, prints the summary line and exits: 0 when
// something passed and nothing failed (a crashed setup counts as a failure).
export function finish(results, crashed, artifacts, label) {
  const count = (o) => results.filter((r) => r.outcome === o).length;
  const failedCount = count('failed') + (crashed ? 1 : 0);
  writeFileSync(join(artifacts, 'results.json'), JSON.stringify(results, null, 2));
  console.log(`${label}: ${artifacts}`);
  console.log(`${count('passed')} passed, ${failedCount} failed, ${count('skipped')} skipped`);
  process.exit(failedCount === 0 && count('passed') > 0 ? 0 : 1);
}
