/**
 * A real Dovecot IMAP server for the mailbox poller's tests (issue #38 item 1): its own
 * configuration, base and state directories, maildirs and log in a temp dir, listening on
 * 127.0.0.1 only: plain IMAP with STARTTLS and IMAP over TLS on free ports, one user from a
 * passwd-file, a self-signed certificate for 127.0.0.1 made by openssl. Run as root (CI, this
 * machine) its login and internal processes take Debian's `dovenull` and `dovecot` users and the
 * mail belongs to `nobody`; otherwise everything runs as the current user.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './dnsbl-tools.ts';

export const DOVECOT = '/usr/sbin/dovecot';

export interface DovecotServer {
  dir: string;
  user: string;
  password: string;
  /** Plain IMAP (STARTTLS offered) and IMAP over TLS. */
  imapPort: number;
  imapsPort: number;
  /** The self-signed certificate (PEM) to trust. */
  certFile: string;
  log(): string;
  stop(): Promise<void>;
}

/** True when Dovecot is installed; prints why the suite is skipped otherwise (CI=true fails). */
export function dovecotAvailable(suite: string): boolean {
  if (fs.existsSync(DOVECOT)) return true;
  if (process.env.CI === 'true')
    throw new Error(`${suite}: CI=true but ${DOVECOT} (Debian dovecot-imapd) is missing`);
  process.stdout.write(
    `[skip] ${suite}: ${DOVECOT} not installed (Debian dovecot-imapd); .ci/run installs it\n`,
  );
  return false;
}

function userExists(name: string): boolean {
  try {
    execFileSync('id', ['-u', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Who runs what: root may not run Dovecot's login processes. */
function accounts(): { login: string; internal: string; mail: string; mailGroup: string } {
  const me = os.userInfo().username;
  if (process.getuid?.() !== 0) return { login: me, internal: me, mail: me, mailGroup: me };
  const pick = (name: string) => (userExists(name) ? name : 'nobody');
  const nobodyGroup = execFileSync('id', ['-gn', 'nobody'], { encoding: 'utf8' }).trim();
  return { login: pick('dovenull'), internal: pick('dovecot'), mail: 'nobody', mailGroup: nobodyGroup };
}

function config(dir: string, ports: { imap: number; imaps: number }): string {
  const who = accounts();
  return `base_dir = ${dir}/base
state_dir = ${dir}/state
instance_name = netrep-test-${path.basename(dir)}
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
default_internal_user = ${who.internal}
default_login_user = ${who.login}
first_valid_uid = 1
ssl = yes
ssl_cert = <${dir}/cert.pem
ssl_key = <${dir}/key.pem
auth_mechanisms = plain login
passdb {
  driver = passwd-file
  args = scheme=PLAIN ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${who.mail} gid=${who.mailGroup} home=${dir}/mail/%u
}
mail_location = maildir:${dir}/mail/%u/Maildir
namespace inbox {
  inbox = yes
  separator = /
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${ports.imap}
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${ports.imaps}
    ssl = yes
  }
}
service anvil {
  chroot =
}
`;
}

async function answers(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Starts Dovecot in `dir` (created and made readable to its processes) with one user. */
export async function startDovecot(dir: string): Promise<DovecotServer> {
  const user = 'dmarc-reports';
  // Characters a URL must percent-encode (a colon would end the passwd-file field).
  const password = 'p@ss%word/with?odd#chars';
  for (const d of ['base', 'state', 'mail']) fs.mkdirSync(path.join(dir, d), { recursive: true });
  fs.chmodSync(dir, 0o755);
  if (process.getuid?.() === 0)
    execFileSync('chown', [`nobody:${accounts().mailGroup}`, path.join(dir, 'mail')]);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1'].concat([
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ]),
    { stdio: 'ignore' },
  );
  fs.writeFileSync(path.join(dir, 'passwd'), `${user}:{PLAIN}${password}::::::\n`);
  const ports = { imap: await freePort(), imaps: await freePort() };
  const conf = path.join(dir, 'dovecot.conf');
  fs.writeFileSync(conf, config(dir, ports));
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', conf], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const logFile = path.join(dir, 'dovecot.log');
  const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 20_000;
  while (!((await answers(ports.imap)) && (await answers(ports.imaps)))) {
    if (child.exitCode !== null) throw new Error(`dovecot exited with ${child.exitCode}:\n${log()}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`dovecot did not listen:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    dir,
    user,
    password,
    imapPort: ports.imap,
    imapsPort: ports.imaps,
    certFile: path.join(dir, 'cert.pem'),
    log,
    stop,
  };
}
