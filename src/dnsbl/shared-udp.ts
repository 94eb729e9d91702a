/**
 * One UDP socket read by several DNS threads (NETREP_DNSBL_THREADS, #35). Linux hands each
 * datagram to one of the event loops polling the socket, so the threads share the queries without
 * `reusePort` (Node 22.12+; the CI runtime, Node 20, has none).
 *
 * Each thread reads through its own descriptor, a duplicate of the socket's: a libuv handle closes
 * its descriptor when it closes (a thread's end closes its handles), so threads wrapping one
 * descriptor number would close it under each other and later close whatever the number was
 * reused for. Node has no dup(); a descriptor sent over an IPC channel arrives as a duplicate
 * (SCM_RIGHTS), so a thread starts a short-lived helper process that inherits the socket and sends
 * it back.
 */
import { spawn } from 'node:child_process';
import type dgram from 'node:dgram';
import fs from 'node:fs';

/** Inodes of the UDP sockets bound to `port` (IPv4 and IPv6 tables; none where /proc is absent). */
function udpInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const table of ['/proc/net/udp', '/proc/net/udp6']) {
    let rows: string[] = [];
    try {
      rows = fs.readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      // Not Linux, or no IPv6.
    }
    for (const row of rows) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const cols = row.trim().split(/\s+/);
      if (cols[1]?.endsWith(hexPort) && cols[9]) inodes.add(cols[9]);
    }
  }
  return inodes;
}

/**
 * This process's descriptors on the UDP socket bound to `port` (one per DNS thread reading it);
 * none when it is closed or the system cannot say (not Linux: the caller serves from one thread).
 * Read from /proc: the socket's inode in /proc/net/udp(6), then the descriptors whose link names it.
 */
export function udpDescriptors(port: number): number[] {
  const inodes = udpInodes(port);
  if (inodes.size === 0) return [];
  let fds: string[] = [];
  try {
    fds = fs.readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  return fds.map(Number).filter((fd) => {
    let link = '';
    try {
      link = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      // Closed since the listing (the directory's own descriptor, another thread's file).
    }
    return inodes.has(/^socket:\[(\d+)\]$/.exec(link)?.[1] ?? '');
  });
}

/**
 * Inherits the socket as its descriptor 4, wraps it and sends its handle back on the IPC channel
 * (3): a bare handle ('dgram.Native') arrives unwrapped, so the caller's socket keeps its options.
 * The handle is the socket's internal state's (the symbol described 'state symbol', lib/dgram.js):
 * `_handle`, its deprecated alias, is gone in Node 25 (DEP0112), and is only the fallback.
 */
const HELPER = `const s = require('node:dgram').createSocket(process.argv[1]);
s.bind({ fd: 4 }, () => {
  const state = Object.getOwnPropertySymbols(s).find((k) => k.description === 'state symbol');
  const handle = (state && s[state] && s[state].handle) || s._handle;
  process.send('udp', handle, (err) => process.exit(err ? 1 : 0));
});`;

const ADOPT_TIMEOUT_MS = 10_000;

/**
 * Binds `socket` (new, unbound; created with the options it should answer with) to its own
 * duplicate of descriptor `fd`, which must be the UDP socket bound to `address`:`port` (checked:
 * the number may have been closed and reused since it was found). Rejects when it is not.
 */
export function adoptUdpSocket(
  socket: dgram.Socket,
  fd: number,
  expected: { type: 'udp4' | 'udp6'; address: string; port: number },
): Promise<void> {
  // --no-deprecation: `_handle` is deprecated (DEP0112) but is the one way to send a bare handle.
  const child = spawn(process.execPath, ['--no-deprecation', '-e', HELPER, expected.type], {
    // No NODE_OPTIONS: the helper needs no loader (a test runner's would slow its start).
    env: {},
    stdio: ['ignore', 'ignore', 'pipe', 'ipc', fd],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ADOPT_TIMEOUT_MS);
    child.once('message', (_m, handle) => {
      clearTimeout(timer);
      // dgram's bind takes a bare UDP handle as its port (lib/dgram.js; cluster workers do so).
      socket.bind(handle as unknown as number, () => {
        const at = socket.address();
        if (at.port === expected.port && at.address === expected.address) resolve();
        else {
          socket.close();
          reject(new Error(`descriptor ${fd} is ${at.address}:${at.port}, not the DNSBL socket`));
        }
      });
    });
    // 'close', not 'exit': it comes after the IPC channel's last message. After the socket it does
    // nothing (a promise settles once).
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`the UDP descriptor helper ended (${signal ?? code}) without a socket: ${stderr.trim()}`),
      );
    });
    child.once('error', reject);
  });
}
