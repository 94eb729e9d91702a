/** MX records (RFC 5321 §5.1, null MX RFC 7505): sorted, resolved, problems recorded. */
import type { DnsClient } from '../core/dns/index.ts';
import { isAbsent, isDnsError } from '../core/dns/index.ts';
import { parseIp } from '../core/ip.ts';
import type { Checked, DnsStatus, MxHost, MxResult } from './types.ts';

/** Hosts resolved at most; a domain with more MX hosts is reported but not fully resolved. */
export const MAX_MX_HOSTS = 10;

function dnsProblem(err: unknown, what: string): string {
  return `DNS ${isDnsError(err) ? err.code : 'error'} while looking up ${what}`;
}

async function resolveHost(
  dns: DnsClient,
  exchange: string,
  preference: number,
  errors: string[],
): Promise<Checked<MxHost>> {
  const host: MxHost = { exchange, preference, addresses: [], resolves: false };
  if (parseIp(exchange)) {
    errors.push(`MX host ${exchange} is an IP address; MX must name a host (RFC 5321 §5.1)`);
    return { result: host, status: 'found' };
  }
  let failed = false;
  const answers = await Promise.all(
    (['a', 'aaaa'] as const).map((type) =>
      dns[type](exchange).catch((err: unknown) => {
        if (!isAbsent(err)) {
          failed = true;
          errors.push(dnsProblem(err, `${exchange} ${type.toUpperCase()}`));
        }
        return [] as string[];
      }),
    ),
  );
  host.addresses = answers.flat();
  host.resolves = host.addresses.length > 0;
  // No address and a lookup that failed: whether the host resolves is unknown, not "no".
  return { result: host, status: host.resolves ? 'found' : failed ? 'temperror' : 'absent' };
}

const isNullMx = (r: { exchange: string }) => r.exchange === '' || r.exchange === '.';

/** RFC 7505: a null MX says the domain takes no mail, and must stand alone. */
function noteNullMx(domain: string, rows: { exchange: string }[], result: MxResult): void {
  if (!rows.some(isNullMx)) return;
  result.null_mx = true;
  result.errors.push(
    rows.length === 1
      ? `${domain} publishes a null MX (RFC 7505): it accepts no mail`
      : 'a null MX must be the only MX record (RFC 7505 §3)',
  );
}

export function emptyMx(): MxResult {
  return { records: [], hosts: [], null_mx: false, is_valid: false, errors: [] };
}

/** The MX facts and their status: temperror when the MX query failed, or when no host resolves and some host lookups failed. */
export async function checkMx(
  domain: string,
  dns: DnsClient,
): Promise<Checked<MxResult> & { unreadHosts: string[] }> {
  const result = emptyMx();
  let rows: { exchange: string; priority: number }[];
  try {
    rows = await dns.mx(domain);
  } catch (err) {
    result.errors.push(isAbsent(err) ? `no MX records at ${domain}` : dnsProblem(err, `${domain} MX`));
    return { result, status: isAbsent(err) ? 'absent' : 'temperror', unreadHosts: [] };
  }
  const sorted = [...rows].sort((x, y) => x.priority - y.priority || x.exchange.localeCompare(y.exchange));
  noteNullMx(domain, sorted, result);
  const real = sorted.filter((r) => !isNullMx(r));
  result.records = real.map((r) => r.exchange);
  if (real.length > MAX_MX_HOSTS) {
    result.errors.push(`${real.length} MX hosts; only the first ${MAX_MX_HOSTS} were resolved`);
  }
  const errors: string[] = [];
  const hosts = await Promise.all(
    real.slice(0, MAX_MX_HOSTS).map((r) => resolveHost(dns, r.exchange, r.priority, errors)),
  );
  result.hosts = hosts.map((h) => h.result);
  for (const host of hosts) {
    if (host.status === 'absent') result.errors.push(`MX host ${host.result.exchange} does not resolve`);
  }
  result.errors.push(...errors.sort());
  result.is_valid = !result.null_mx && result.hosts.some((h) => h.resolves);
  // Valid or not depends on a host that could not be checked: the MX verdict is unknown.
  const unknown = !result.is_valid && !result.null_mx && hosts.some((h) => h.status === 'temperror');
  const status: DnsStatus = unknown ? 'temperror' : 'found';
  const unreadHosts = hosts.filter((h) => h.status === 'temperror').map((h) => h.result.exchange);
  return { result, status, unreadHosts };
}
