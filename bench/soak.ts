/**
 * Soak: the real `netrep serve` process (SQLite store, the npm-package dataset, the DNSBL server
 * on a loopback port) under minutes of mixed traffic from this process, printing the server's
 * RSS and each kind of request's p99 once a minute. What it is for: both lines stay flat (no
 * leak, no slow creep as the store and the caches fill). The reference is minute 2 of the same
 * run (minute 1 includes warm-up: JIT, caches, the first SQLite pages): the last line gives the
 * last minute's RSS and p99 as ratios to it (issue 20's bar: RSS under 1.10×, p99 within 2×).
 *
 * Traffic, closed loops with a fixed number in flight (HTTP keep-alive through Node's fetch):
 * keyed `GET /v1/ip/{ip}`, `POST /v1/ip/batch` (100 addresses), reputation of public addresses,
 * `GET /v1/blocklist/ip/{ip}`, telemetry ingest (100 observations) and evidence ingest (20 events)
 * to addresses that keep changing (so the store grows), an administrator listing now and then,
 * and DNSBL queries over UDP. Every answer must be 2xx (DNS: NOERROR or NXDOMAIN). Each row
 * also gives the machine's 1-minute load average, since a shared VM's neighbours move p99 more
 * than the server does.
 * Run: `npm run bench -- soak` (5 minutes; BENCH_SOAK_MINUTES=1 for a short run).
 */
import { execFileSync, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import dnsPacket from 'dns-packet';
import { benchDataDir, realAddresses, rssMb, waitListening } from './served.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 5);
const MINUTE_MS = Number(process.env.BENCH_SOAK_MINUTE_MS ?? 60_000);
const ZONE = 'bl.soak.test';

interface Kind {
  name: string;
  inFlight: number;
  send: (i: number) => Promise<boolean>;
}

function p99(latencies: number[]): number {
  if (latencies.length === 0) return Number.NaN;
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? Number.NaN;
}

async function freePort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = socket.address().port;
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

async function main(): Promise<void> {
  const work = path.join(tmpdir(), 'netrep-bench-soak');
  rmSync(work, { recursive: true, force: true });
  const dataDir = path.join(work, 'data');
  await benchDataDir(dataDir);
  const dnsPort = await freePort();
  const env = {
    ...process.env,
    NETREP_DATA_DIR: dataDir,
    NETREP_LISTEN: '127.0.0.1:0',
    NETREP_DNSBL_LISTEN: `127.0.0.1:${dnsPort}`,
    NETREP_DNSBL_ZONE: ZONE,
    NETREP_DATASET_UPDATE: 'off',
    // PTR lookups (hostnames, the daily FCrDNS pass over telemetry senders) stay on this machine:
    // the DNSBL server refuses names outside its zone at once.
    NETREP_DNS_SERVERS: `127.0.0.1:${dnsPort}`,
    NETREP_LOG_LEVEL: 'warn',
    // Reputation is a public route limited per client address (60/min): the soak client sends
    // X-Forwarded-For from a ring of addresses, trusted only from loopback.
    NETREP_TRUSTED_PROXIES: '127.0.0.1/32',
    NETREP_ADMIN_EMAIL: 'soak@example.test',
    NETREP_ADMIN_PASSWORD: 'soak-password-123',
  };
  const bin = path.join(REPO, 'bin/netrep.js');
  const server = spawn(process.execPath, ['--expose-gc', bin, 'serve'], {
    cwd: work,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const base = await waitListening(server, 'netrep serve');
  // The server's own lines (warnings, the shutdown), kept for the report at the end.
  let serverOut = '';
  const keep = (d: Buffer) => {
    serverOut = (serverOut + d.toString()).slice(-4000);
  };
  server.stdout?.on('data', keep);
  server.stderr?.on('data', keep);
  const dns = dgram.createSocket('udp4');
  try {
    const key = (permissions: string, ...extra: string[]) =>
      execFileSync(
        process.execPath,
        [
          bin,
          'keys',
          'create',
          '--name',
          'soak',
          '--tier',
          'enterprise',
          '--permissions',
          permissions,
          ...extra,
        ],
        { cwd: work, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      )
        .trim()
        .split('\n')
        .at(-1) ?? '';
    const reader = key('ip:read,blocklist:read,email:read');
    const writer = key('telemetry:write', '--feature', 'telemetry_ingest');
    const admin = key('admin');

    const ips = realAddresses(20_000, 11);
    const v4 = ips.filter((ip) => !ip.includes(':'));
    let fresh = 0;
    const freshIp = () => {
      fresh++;
      return `46.${(fresh >> 16) & 255}.${(fresh >> 8) & 255}.${fresh & 255}`;
    };
    let client = 0;
    const call = async (method: string, url: string, apiKey: string, body?: unknown) => {
      client = (client + 1) % 65_536;
      const res = await fetch(`${base}${url}`, {
        method,
        headers: {
          'x-api-key': apiKey,
          'x-forwarded-for': `10.77.${client >> 8}.${client & 255}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : null,
      });
      await res.arrayBuffer();
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status}`);
      return true;
    };
    const pick = (i: number) => ips[(i * 7919) % ips.length] as string;
    const pick4 = (i: number) => v4[(i * 104_729) % v4.length] as string;

    // DNSBL over UDP: one socket, queries matched by id.
    const pending = new Map<number, (ok: boolean) => void>();
    dns.on('message', (msg) => {
      if (msg.length < 12) return;
      const id = msg.readUInt16BE(0);
      const done = pending.get(id);
      if (!done) return;
      pending.delete(id);
      const rcode = msg.readUInt16BE(2) & 0xf;
      done(rcode === 0 || rcode === 3 /* NOERROR, NXDOMAIN */);
    });
    let dnsId = 0;
    const query = (ip: string) =>
      new Promise<boolean>((resolve) => {
        dnsId = (dnsId + 1) & 0xffff;
        const id = dnsId;
        const timer = setTimeout(() => {
          pending.delete(id);
          resolve(false);
        }, 2000);
        pending.set(id, (ok) => {
          clearTimeout(timer);
          resolve(ok);
        });
        const name = `${ip.split('.').reverse().join('.')}.${ZONE}`;
        dns.send(
          dnsPacket.encode({ type: 'query', id, questions: [{ type: 'A', name }] }),
          dnsPort,
          '127.0.0.1',
        );
      });

    const now = () => new Date().toISOString();
    const kinds: Kind[] = [
      { name: 'ip', inFlight: 4, send: (i) => call('GET', `/v1/ip/${pick(i)}`, reader) },
      {
        name: 'ip-batch',
        inFlight: 1,
        send: (i) =>
          call('POST', '/v1/ip/batch', reader, {
            ips: Array.from({ length: 100 }, (_, k) => pick(i * 100 + k)),
          }),
      },
      {
        name: 'reputation',
        inFlight: 2,
        send: (i) => call('GET', `/v1/email/ip/${pick4(i)}/reputation`, reader),
      },
      { name: 'blocklist', inFlight: 2, send: (i) => call('GET', `/v1/blocklist/ip/${pick(i)}`, reader) },
      {
        name: 'telemetry',
        inFlight: 1,
        send: () =>
          call('POST', '/v1/email/telemetry/ingest', writer, {
            observations: Array.from({ length: 100 }, (_, k) => ({
              ip: freshIp(),
              bounce_rate: (k % 8) / 100,
              complaint_rate: (k % 3) / 1000,
              volume_24h: 1000 + k,
              observed_at: now(),
            })),
          }),
      },
      {
        name: 'evidence',
        inFlight: 1,
        send: async (i) => {
          await call('POST', '/v1/admin/evidence', admin, {
            events: Array.from({ length: 20 }, (_, k) => ({
              ip: pick4(i * 20 + k),
              kind: k % 2 ? 'pristine_trap' : 'smtp_honeypot',
              observed_at: now(),
              source: 'soak',
            })),
          });
          // Now and then a listing, so the blocklist and the DNSBL mirror change under load.
          if (i % 10 === 0) {
            await call('POST', '/v1/admin/blocklist/listings', admin, {
              ip: pick4(i),
              type: 'spam',
              reason: 'soak',
            });
          }
          return true;
        },
      },
      { name: 'dnsbl-udp', inFlight: 4, send: (i) => query(pick4(i)) },
    ];

    const latencies = new Map<string, number[]>(kinds.map((k) => [k.name, []]));
    const failures = new Map<string, number>(kinds.map((k) => [k.name, 0]));
    let stop = false;
    let seq = 0;
    const loop = async (kind: Kind) => {
      while (!stop) {
        const i = seq++;
        const t0 = performance.now();
        let ok = false;
        try {
          ok = await kind.send(i);
        } catch (err) {
          if ((failures.get(kind.name) ?? 0) === 0) process.stderr.write(`soak: ${String(err)}\n`);
        }
        if (ok) latencies.get(kind.name)?.push(performance.now() - t0);
        else failures.set(kind.name, (failures.get(kind.name) ?? 0) + 1);
      }
    };
    const loops = kinds.flatMap((k) => Array.from({ length: k.inFlight }, () => loop(k)));

    process.stdout.write(
      `soak: netrep serve (SQLite, npm dataset, DNSBL on UDP), ${MINUTES} × ${MINUTE_MS / 1000} s of mixed traffic, ${kinds.reduce((n, k) => n + k.inFlight, 0)} in flight; RSS of the server, p99 in ms per kind\n`,
    );
    process.stdout.write(
      `minute  load  rss MB  ${kinds.map((k) => `${k.name.padStart(10)} n/p99`).join('  ')}\n`,
    );
    const rows: { rss: number; p99: number[] }[] = [];
    for (let minute = 1; minute <= MINUTES; minute++) {
      await new Promise((r) => setTimeout(r, MINUTE_MS));
      const rss = rssMb(server.pid);
      const p = kinds.map((k) => p99(latencies.get(k.name) ?? []));
      const cells = kinds.map((k, j) => {
        const n = latencies.get(k.name)?.length ?? 0;
        const f = failures.get(k.name) ?? 0;
        return `${`${n}${f ? `(${f} bad)` : ''}/${(p[j] ?? Number.NaN).toFixed(1)}`.padStart(16)}`;
      });
      process.stdout.write(
        `${String(minute).padStart(6)}  ${(loadavg()[0] ?? 0).toFixed(1).padStart(4)}  ${rss.toFixed(0).padStart(6)}  ${cells.join('  ')}\n`,
      );
      rows.push({ rss, p99: p });
      for (const k of kinds) latencies.set(k.name, []);
    }
    stop = true;
    await Promise.all(loops);
    const ref = rows[Math.min(1, rows.length - 1)];
    const last = rows.at(-1);
    if (ref && last) {
      const refMinute = Math.min(2, rows.length);
      const ratios = kinds.map((k, j) => `${k.name} ${((last.p99[j] ?? 0) / (ref.p99[j] ?? 1)).toFixed(2)}x`);
      process.stdout.write(
        `soak minute ${rows.length} vs minute ${refMinute}: rss ${(last.rss / ref.rss).toFixed(2)}x (${ref.rss.toFixed(0)} → ${last.rss.toFixed(0)} MB); p99 ${ratios.join(', ')}; failures ${[...failures.values()].reduce((a, b) => a + b, 0)}\n`,
      );
    }
  } finally {
    dns.close();
    // A stop after the soak is part of it: SIGTERM must end the process within the shutdown deadline.
    const t0 = performance.now();
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000)),
    ]);
    if (code === 'hung') {
      server.kill('SIGKILL');
      process.stdout.write(
        `soak: the server did not exit within 20 s of SIGTERM; its last lines:\n${serverOut}\n`,
      );
      process.exitCode = 1;
    } else {
      process.stdout.write(`soak: SIGTERM → exit ${code} in ${(performance.now() - t0).toFixed(0)} ms\n`);
      if (code !== 0) process.stdout.write(`${serverOut}\n`);
    }
  }
}

await main();
