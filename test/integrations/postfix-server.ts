/**
 * A real Postfix (master, smtpd and the services smtpd calls) with its own configuration, queue
 * and log in a temp dir, listening on a loopback port. Postfix asks DNS through the C library,
 * which reads resolv.conf and only speaks to port 53: smtpd runs chrooted into its queue
 * directory (as Debian runs it), whose etc/resolv.conf names the loopback address given. Needs
 * root (chroot, the postfix user, port 53), as CI and this machine run.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../helpers/dnsbl-tools.ts';

const execFileP = promisify(execFile);

// Only the services an SMTP session up to RCPT needs; smtpd chrooted (the fifth column).
const MASTER_CF = (port: number) => `127.0.0.1:${port} inet n - y - - smtpd
postlog   unix-dgram n - n - 1 postlogd
anvil     unix - - y - 1 anvil
rewrite   unix - - y - - trivial-rewrite
cleanup   unix n - y - 0 cleanup
proxymap  unix - - n - - proxymap
`;

export interface SmtpReply {
  code: number;
  text: string;
}

export interface PostfixServer {
  config: string;
  /** One SMTP session from `clientIp` (a loopback address) up to RCPT; the RCPT reply. */
  rcptFrom(clientIp: string): Promise<SmtpReply>;
  log(): string;
  stop(): Promise<void>;
}

/** Starts Postfix with `mainCf` as main.cf and `nameserver` (port 53) as its resolver. */
export async function startPostfix(options: {
  dir: string;
  mainCf: string;
  nameserver: string;
}): Promise<PostfixServer> {
  const { dir } = options;
  const config = path.join(dir, 'conf');
  const queue = path.join(dir, 'queue');
  const data = path.join(dir, 'data');
  for (const d of [config, path.join(queue, 'etc'), data]) fs.mkdirSync(d, { recursive: true });
  fs.chmodSync(queue, 0o755);
  await execFileP('chown', ['postfix', data]);
  fs.writeFileSync(path.join(queue, 'etc', 'resolv.conf'), `nameserver ${options.nameserver}\n`);
  for (const f of ['hosts', 'services']) fs.copyFileSync(`/etc/${f}`, path.join(queue, 'etc', f));
  const port = await freePort();
  const maillog = path.join(dir, 'maillog');
  fs.writeFileSync(
    path.join(config, 'main.cf'),
    `${options.mainCf}queue_directory = ${queue}\ndata_directory = ${data}\nmaillog_file_prefixes = ${dir}\nmaillog_file = ${maillog}\n`,
  );
  fs.writeFileSync(path.join(config, 'master.cf'), MASTER_CF(port));
  const child: ChildProcess = spawn('postfix', ['-c', config, 'start-fg'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => (fs.existsSync(maillog) ? fs.readFileSync(maillog, 'utf8') : '');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    await execFileP('postfix', ['-c', config, 'stop']).catch(() => child.kill('SIGTERM'));
    await exited;
  };
  const deadline = Date.now() + 30_000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null) throw new Error(`postfix exited with ${child.exitCode}:\n${log()}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`postfix did not listen on ${port}:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { config, rcptFrom: (ip) => rcptFrom(port, ip), log, stop };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** EHLO, MAIL, RCPT, QUIT from a client bound to `clientIp`; the RCPT reply. */
function rcptFrom(port: number, clientIp: string): Promise<SmtpReply> {
  const commands = [
    'EHLO client.example.org',
    'MAIL FROM:<sender@example.org>',
    'RCPT TO:<rcpt@example.com>',
    'QUIT',
  ];
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: clientIp });
    socket.setTimeout(15_000, () => socket.destroy(new Error('SMTP session timed out')));
    let buffer = '';
    const replies: SmtpReply[] = [];
    socket.on('data', (d: Buffer) => {
      buffer += d.toString();
      // A reply ends with a line whose fourth character is a space (RFC 5321 §4.2.1).
      for (let m = /^(\d{3}) (.*)\r\n/m.exec(buffer); m; m = /^(\d{3}) (.*)\r\n/m.exec(buffer)) {
        replies.push({ code: Number(m[1]), text: m[2] as string });
        buffer = buffer.slice(m.index + m[0].length);
        const next = commands[replies.length - 1];
        if (next) socket.write(`${next}\r\n`);
      }
    });
    socket.once('error', reject);
    socket.once('close', () => {
      // Greeting, EHLO, MAIL, RCPT: the fourth reply.
      const rcpt = replies[3];
      if (rcpt) resolve(rcpt);
      else reject(new Error(`no RCPT reply: ${JSON.stringify(replies)}`));
    });
  });
}
