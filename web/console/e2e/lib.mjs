// Helpers the browser tests share: free ports, assertions and the step runner with its
// summary line.

import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
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

// startServer runs `skygate serve` in development on free loopback ports with a fresh
// data directory under work, its log in artifacts/server.log, and waits for /readyz.
// Without SKYGATE_E2E_BIN it builds ./cmd/skygate in repo with the race detector: a
// data race the browser's requests provoke fails the run (raceReported), and the build
// shares its compiled packages with scripts/test's `go vet -race` and `go test -race`.
export async function startServer({ repo, work, artifacts }) {
  let bin = process.env.SKYGATE_E2E_BIN;
  if (!bin) {
    bin = join(work, 'skygate');
    console.log('building ./cmd/skygate -race …');
    execFileSync('go', ['build', '-race', '-o', bin, './cmd/skygate'], { cwd: repo, stdio: 'inherit' });
  }
  const [httpPort, mtlsPort, opsPort] = [await freePort(), await freePort(), await freePort()];
  const base = `http://127.0.0.1:${httpPort}`;
  const dataDir = join(work, 'data');
  mkdirSync(dataDir);
  const logFile = join(artifacts, 'server.log');
  const log = createWriteStream(logFile);
  const proc = spawn(bin, ['serve'], {
    cwd: repo,
    env: {
      ...process.env,
      SKYGATE_ENV: 'development',
      SKYGATE_HTTP_ADDR: `127.0.0.1:${httpPort}`,
      SKYGATE_MTLS_ADDR: `127.0.0.1:${mtlsPort}`,
      SKYGATE_OPS_ADDR: `127.0.0.1:${opsPort}`,
      SKYGATE_PUBLIC_URL: base,
      SKYGATE_DATA_DIR: dataDir,
      SKYGATE_LOG_LEVEL: 'info',
      // No load balancer needs the drain delay before the server stops.
      SKYGATE_SHUTDOWN_DELAY: '0s',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  proc.stdout.on('data', (chunk) => (stdout += chunk));
  proc.stdout.pipe(log);
  proc.stderr.pipe(log);
  // The race detector writes its reports to stderr (and makes the exit status 66).
  let tail = '';
  let raced = false;
  proc.stderr.on('data', (chunk) => {
    tail = (tail + chunk).slice(-4096);
    raced ||= tail.includes('WARNING: DATA RACE');
  });
  const stop = async () => {
    if (proc.exitCode !== null) return;
    proc.kill('SIGTERM');
    await new Promise((r) => {
      const t = setTimeout(() => {
        proc.kill('SIGKILL');
        r();
      }, 15_000);
      proc.once('exit', () => {
        clearTimeout(t);
        r();
      });
    });
  };
  // Ready once /readyz answers and the development demo client is on stdout.
  const until = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`skygate exited with ${proc.exitCode}; log: ${logFile}`);
    try {
      const r = await fetch(base + '/readyz');
      if (r.status === 200 && /Demo client/.test(stdout)) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) {
      await stop();
      throw new Error(`${base}/readyz never answered 200`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    mtlsBase: `https://127.0.0.1:${mtlsPort}`,
    dataDir,
    logFile,
    stop,
    stdout: () => stdout,
    // null: a binary from SKYGATE_E2E_BIN, which need not have the race detector.
    raceReported: process.env.SKYGATE_E2E_BIN ? null : () => raced || proc.exitCode === 66,
  };
}
