/** The TLS view: TLS report policies of one domain summed per policy, failures by receiving MTA and result. */
import type { TlsPolicy } from './types.ts';
import type { DomainTls } from './view-types.ts';

const sorted = (values: Iterable<string | null>) =>
  [...new Set([...values].filter((v): v is string => v !== null))].sort();

/** TLS policies of the domain summed per policy, and their failures by receiving MTA and result. */
export function tlsOf(rows: { report: number; org_name: string; detail: string }[], domain: string) {
  const policies = new Map<string, DomainTls['policies'][number] & { seen: Set<number> }>();
  const failures = new Map<string, DomainTls['failures'][number]>();
  const reports = new Set<number>();
  for (const row of rows) {
    const p = JSON.parse(row.detail) as TlsPolicy;
    if (p.policy_domain !== domain) continue;
    reports.add(row.report);
    const key = JSON.stringify([p.policy_type, p.policy_strings, p.mx_hosts]);
    const entry = policies.get(key) ?? {
      policy_type: p.policy_type,
      policy_strings: p.policy_strings,
      mx_hosts: p.mx_hosts,
      reports: 0,
      successful_sessions: 0,
      failed_sessions: 0,
      seen: new Set<number>(),
    };
    entry.seen.add(row.report);
    entry.reports = entry.seen.size;
    entry.successful_sessions += p.successful_sessions;
    entry.failed_sessions += p.failed_sessions;
    policies.set(key, entry);
    for (const f of p.failures) {
      const fkey = JSON.stringify([f.receiving_mx_hostname, f.result_type]);
      const g = failures.get(fkey) ?? {
        receiving_mx_hostname: f.receiving_mx_hostname,
        result_type: f.result_type,
        failed_sessions: 0,
        receiving_ips: [],
        sending_mta_ips: [],
        reporters: [],
      };
      g.failed_sessions += f.failed_session_count;
      g.receiving_ips = sorted([...g.receiving_ips, f.receiving_ip]);
      g.sending_mta_ips = sorted([...g.sending_mta_ips, f.sending_mta_ip]);
      g.reporters = sorted([...g.reporters, row.org_name]);
      failures.set(fkey, g);
    }
  }
  const list = [...policies.values()].map(({ seen: _seen, ...p }) => p);
  return {
    reports: reports.size,
    successful_sessions: list.reduce((s, p) => s + p.successful_sessions, 0),
    failed_sessions: list.reduce((s, p) => s + p.failed_sessions, 0),
    policies: list.sort(
      (a, b) => b.successful_sessions + b.failed_sessions - (a.successful_sessions + a.failed_sessions),
    ),
    failures: [...failures.values()].sort(
      (a, b) =>
        b.failed_sessions - a.failed_sessions ||
        (a.receiving_mx_hostname ?? '').localeCompare(b.receiving_mx_hostname ?? '') ||
        a.result_type.localeCompare(b.result_type),
    ),
  };
}
