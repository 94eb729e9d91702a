/**
 * Real DNS tools for the dnsbl tests and bench: `dig`, a running `rbldnsd`, and a small UDP
 * client that sends many queries to a server on 127.0.0.1 and collects the answers.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';

const execFileP = promisify(execFile);

export interface DigAnswer {
  status: string;
  flags: string[];
  answers: { name: string; ttl: number; type: string; data: string }[];
  authority: { name: string; type: string; data: string }[];
  raw: string;
}

/** Runs dig against 127.0.0.1 and parses its default output. */
export async function dig(
  port: number,
  name: string,
  type: string,
  extra: string[] = [],
): Promise<DigAnswer> {
  const { stdout } = await execFileP('dig', [
    '@127.0.0.1',
    '-p',
    String(port),
    name,
    type,
    '+norec',
    '+tries=1',
    '+time=2',
    ...extra,
  ]);
  const status = /status: (\w+)/.exec(stdout)?.[1] ?? 'NONE';
  const flags = (/;; flags: ([^;]*);/.exec(stdout)?.[1] ?? '').trim().split(/\s+/);
  const section = (title: string) => {
    const m = new RegExp(`;; ${title} SECTION:\\n([\\s\\S]*?)(?:\\n\\n|$)`).exec(stdout);
    return (m?.[1] ?? '')
      .split('\n')
      .filter((l) => l.length > 0 && !l.startsWith(';'))
      .map((l) => {
        const [rname, ttl, , rtype, ...rest] = l.split(/\s+/);
        return { name: rname ?? '', ttl: Number(ttl), type: rtype ?? '', data: rest.join(' ') };
      });
  };
  return { status, flags, answers: section('ANSWER'), authority: section('AUTHORITY'), raw: stdout };
}

/** A TCP port free right now on 127.0.0.1 (for tools that cannot pick one themselves). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    // rbldnsd binds UDP only; make sure the UDP side is free as well.
    const ok = await new Promise<boolean>((resolve) => {
      const u = dgram.createSocket('udp4');
      u.once('error', () => resolve(false));
      u.bind(port, '127.0.0.1', () => u.close(() => resolve(true)));
    });
    if (ok) return port;
  }
}

export interface Rbldnsd {
  port: number;
  pid: number | undefined;
  /** Milliseconds from spawn until it answered its first query. */
  startMs: number;
  stop(): Promise<void>;
}

/** Starts rbldnsd in the foreground on 127.0.0.1 serving a combined data file. */
export async function startRbldnsd(zone: string, dataFile: string, timeoutMs = 30_000): Promise<Rbldnsd> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(
    'rbldnsd',
    ['-n', '-q', '-b', `127.0.0.1/${port}`, '-t', '60', `${zone}:combined:${path.resolve(dataFile)}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  // -q loads the zone after binding: poll the apex SOA until it answers NOERROR.
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`rbldnsd exited: ${log}`);
    const answer = await queryUdp(port, [{ name: zone, type: 'SOA' }], 200).catch(() => []);
    if (answer[0]?.rcode === 'NOERROR' && (answer[0]?.answers.length ?? 0) > 0) {
      return { port, pid: child.pid, startMs: performance.now() - started, stop };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error(`rbldnsd did not answer in ${timeoutMs} ms: ${log}`);
}

const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

export interface UdpAnswer {
  rcode: string;
  flags: number;
  answers: dnsPacket.Answer[];
  authorities: dnsPacket.Answer[];
}

/** Sends queries (at most `window` in flight) and returns the answers in order. */
export async function queryUdp(
  port: number,
  questions: { name: string; type: dnsPacket.RecordType }[],
  timeoutMs = 2000,
  window = 100,
): Promise<UdpAnswer[]> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  const results: UdpAnswer[] = new Array(questions.length);
  const waiting = new Map<number, number>();
  let next = 0;
  let done = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timeout with ${waiting.size} queries unanswered`)),
        timeoutMs,
      );
      const send = () => {
        while (waiting.size < window && next < questions.length) {
          const i = next++;
          const id = i & 0xffff;
          waiting.set(id, i);
          const q = questions[i] as { name: string; type: dnsPacket.RecordType };
          socket.send(
            dnsPacket.encode({ type: 'query', id, questions: [{ name: q.name, type: q.type }] }),
            port,
            '127.0.0.1',
          );
        }
        if (done === questions.length) {
          clearTimeout(timer);
          resolve();
        }
      };
      socket.on('message', (msg) => {
        const p = dnsPacket.decode(msg);
        const i = waiting.get(p.id ?? -1);
        if (i === undefined) return;
        waiting.delete(p.id ?? -1);
        results[i] = {
          rcode: RCODES[(p.flags ?? 0) & 0xf] ?? String((p.flags ?? 0) & 0xf),
          flags: p.flags ?? 0,
          answers: p.answers ?? [],
          authorities: p.authorities ?? [],
        };
        done++;
        send();
      });
      send();
    });
  } finally {
    socket.close();
  }
  return results;
}

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // rbldnsd drops root privileges to its own user before reading its data files.
  fs.chmodSync(dir, 0o755);
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
