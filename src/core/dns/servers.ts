import { parseIp } from '../ip.ts';

/**
 * Parses resolver entries as NETREP_DNS_SERVERS gives them: `ip`, `ip:port` (IPv4),
 * `ipv6` or `[ipv6]:port`. Returns the form node:dns `setServers` takes. Throws on a bad
 * entry: a misconfigured resolver must stop startup, not silently fall back to the system's.
 */
export function parseDnsServers(entries: readonly string[]): string[] {
  return entries.map(parseDnsServer);
}

function parseDnsServer(entry: string): string {
  const { host, port } = splitHostPort(entry.trim());
  const ip = parseIp(host);
  if (!ip || (port !== null && (port < 1 || port > 65535))) {
    throw new Error(`invalid DNS server ${JSON.stringify(entry)}: expected ip, ip:port or [ipv6]:port`);
  }
  if (port === null) return ip.address;
  return ip.family === 6 ? `[${ip.address}]:${port}` : `${ip.address}:${port}`;
}

/** `[host]:port`, `[host]`, `host:port` (one colon: IPv4) or a bare host; port null when absent. */
function splitHostPort(text: string): { host: string; port: number | null } {
  const bracket = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracket) return { host: bracket[1] ?? '', port: bracket[2] === undefined ? null : Number(bracket[2]) };
  if (/^[^:]+:\d{1,5}$/.test(text)) {
    const colon = text.lastIndexOf(':');
    return { host: text.slice(0, colon), port: Number(text.slice(colon + 1)) };
  }
  return { host: text, port: null };
}
