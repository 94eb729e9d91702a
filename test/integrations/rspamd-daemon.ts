/**
 * A real rspamd in the foreground with its own configuration in a temp dir: one normal worker on a
 * free loopback port, only the RBL plugin loaded (the module an operator's `local.d/rbl.conf`
 * configures), DNS through the given loopback resolver and nothing else. Messages are scanned with
 * `rspamc`, the client operators use.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../helpers/dnsbl-tools.ts';

const execFileP = promisify(execFile);

export interface RspamdScan {
  /** Symbol name → its options (for an RBL symbol: `ip:check` or `ip:check:returned code`). */
  symbols: Record<string, string[]>;
}

export interface Rspamd {
  scan(message: string, ip: string): Promise<RspamdScan>;
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts rspamd with `rblConf` as the body of its `rbl { }` section, as Debian's
 * modules.d/rbl.conf includes local.d/rbl.conf there.
 */
export async function startRspamd(options: {
  dir: string;
  rblConf: string;
  /** Test-local rules merged into the same section, as Debian merges local.d into modules.d. */
  extraRblConf?: string;
  nameserver: string;
  timeoutMs?: number;
}): Promise<Rspamd> {
  const { dir } = options;
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'rbl.conf'), options.rblConf);
  fs.writeFileSync(path.join(dir, 'rbl-extra.conf'), options.extraRblConf ?? '');
  // Not Debian's /etc/rspamd: its modules resolve public hosts (fuzzy1.rspamd.com, maps) at
  // start, through the system resolver, and its start takes a minute. Here only the RBL module
  // runs, and startup takes about a second: a three-suffix TLD list instead of the 9,600 public
  // suffixes, no language models, no hyperscan compile.
  fs.writeFileSync(path.join(dir, 'tld.dat'), 'com\norg\ntest\n');
  fs.mkdirSync(path.join(dir, 'languages'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'rspamd.conf'),
    `options {
  pidfile = "${dir}/rspamd.pid";
  tempdir = "${dir}";
  cache_file = "${dir}/symbols.cache";
  hs_cache_dir = "${dir}";
  url_tld = "${dir}/tld.dat";
  disable_hyperscan = true;
  # The RBL module's liveness probe (RFC 5782 §5: 127.0.0.1 must not be listed) every second, not
  # every minute, so a test sees its answer.
  monitoring_watch_interval = 1s;
  dns { nameserver = ["${options.nameserver}"]; timeout = 1s; retransmits = 2; }
}
lang_detection { languages = "${dir}/languages"; }
# Debug lines of the monitor: the probe's answer, which the test reads.
logging { type = "console"; level = "info"; debug_modules = ["monitored"]; }
worker "normal" { bind_socket = "127.0.0.1:${port}"; count = 1; }
modules { path = "\${PLUGINSDIR}/rbl.lua"; }
rbl {
.include "${dir}/rbl.conf"
.include(duplicate=merge) "${dir}/rbl-extra.conf"
}
`,
  );
  // -f: foreground; -i: CI and this machine run tests as root, and rspamd refuses a root
  // worker without it (it would otherwise need -u/-g and a dir that user can read).
  const child: ChildProcess = spawn('rspamd', ['-f', '-i', '-c', path.join(dir, 'rspamd.conf')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const collect = (d: Buffer) => {
    log += d.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const connect = `127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`rspamd exited with ${child.exitCode}:\n${log}`);
    const ping = await fetch(`http://${connect}/ping`).catch(() => null);
    if (ping?.ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`rspamd did not answer /ping:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  let n = 0;
  return {
    async scan(message, ip) {
      const file = path.join(dir, `message-${n++}.eml`);
      fs.writeFileSync(file, message);
      const { stdout } = await execFileP('rspamc', ['-h', connect, '-t', '10', '-i', ip, '--json', file]);
      const reply = JSON.parse(stdout) as { symbols?: Record<string, { options?: string[] }> };
      const symbols: Record<string, string[]> = {};
      for (const [name, s] of Object.entries(reply.symbols ?? {})) symbols[name] = s.options ?? [];
      return { symbols };
    },
    log: () => log,
    stop,
  };
}
