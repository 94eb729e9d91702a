/**
 * The one parser of `host:port` listen addresses (NETREP_LISTEN, NETREP_DNSBL_LISTEN,
 * NETREP_METRICS_LISTEN): `host:port`, `[v6]:port`, and where the caller has defaults, a bare
 * host or `:port`. Port 0 asks the system for a free port.
 */
import net from 'node:net';

export interface ListenAddress {
  host: string;
  port: number;
}

export interface ListenRules {
  /** Used when the text has no port; without it a port is required. */
  defaultPort?: number;
  /** Used when the text has no host; without it a host is required. */
  defaultHost?: string;
  /** The host must be an IP address (sockets bound without a name lookup). */
  ipHost?: boolean;
  /** Names the setting in error messages. */
  what?: string;
}

export function parseHostPort(text: string, rules: ListenRules = {}): ListenAddress {
  const what = rules.what ?? 'listen address';
  const bad = (why: string) => new Error(`invalid ${what} ${JSON.stringify(text)}: ${why}`);
  const trimmed = text.trim();
  // An IPv6 host is bracketed whenever a port follows; anything else holds no colon.
  const m = /^\[([^\]]*)\](?::(\d*))?$/.exec(trimmed) ?? /^([^:[\]]*)(?::(\d*))?$/.exec(trimmed);
  if (!m) throw bad('expected host:port ([v6]:port for IPv6)');
  const host = m[1] || rules.defaultHost;
  if (host === undefined) throw bad('expected host:port, the host is missing');
  if (rules.ipHost && net.isIP(host) === 0) throw bad('the host must be an IP address');
  const portText = m[2] || undefined;
  if (portText === undefined && rules.defaultPort === undefined)
    throw bad('expected host:port, the port is missing');
  const port = portText === undefined ? (rules.defaultPort as number) : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw bad('the port must be 0-65535');
  return { host, port };
}
