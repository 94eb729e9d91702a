/** SMTP TLS reports (RFC 8460 §4): JSON, one report per document. */
import {
  dateTime,
  integer,
  listOf,
  MAX_COUNT,
  objectOf,
  optionalAddress,
  period,
  refuse,
  requiredText,
  textOf,
} from './fields.ts';
import type { ParsedReport, TlsPolicy } from './types.ts';

const POLICY_TYPES = ['sts', 'tlsa', 'no-policy-found'] as const;

function texts(value: unknown): string[] {
  return listOf(value).flatMap((v) => {
    const t = textOf(v);
    return t === null ? [] : [t];
  });
}

function readFailure(item: unknown, where: string): TlsPolicy['failures'][number] {
  const node = objectOf(item, where);
  return {
    result_type: requiredText(node['result-type'], `${where}/result-type`),
    sending_mta_ip: optionalAddress(node['sending-mta-ip'], `${where}/sending-mta-ip`),
    receiving_mx_hostname: textOf(node['receiving-mx-hostname']),
    receiving_mx_helo: textOf(node['receiving-mx-helo']),
    receiving_ip: optionalAddress(node['receiving-ip'], `${where}/receiving-ip`),
    failed_session_count: integer(
      node['failed-session-count'],
      `${where}/failed-session-count`,
      0,
      MAX_COUNT,
    ),
    additional_information: textOf(node['additional-information']),
    failure_reason_code: textOf(node['failure-reason-code']),
  };
}

function readPolicy(item: unknown, n: number): TlsPolicy {
  const where = `policies[${n}]`;
  const entry = objectOf(item, where);
  const policy = objectOf(entry.policy, `${where}/policy`);
  const summary = objectOf(entry.summary, `${where}/summary`);
  const type = requiredText(policy['policy-type'], `${where}/policy-type`);
  if (!(POLICY_TYPES as readonly string[]).includes(type))
    refuse(`${where}/policy-type: ${JSON.stringify(type)} is not one of ${POLICY_TYPES.join(', ')}`);
  return {
    policy_type: type,
    policy_domain: requiredText(policy['policy-domain'], `${where}/policy-domain`).toLowerCase(),
    policy_strings: texts(policy['policy-string']),
    mx_hosts: texts(policy['mx-host']),
    successful_sessions: integer(
      summary['total-successful-session-count'],
      `${where}/total-successful-session-count`,
      0,
      MAX_COUNT,
    ),
    failed_sessions: integer(
      summary['total-failure-session-count'],
      `${where}/total-failure-session-count`,
      0,
      MAX_COUNT,
    ),
    failures: listOf(entry['failure-details']).map((f, i) =>
      readFailure(f, `${where}/failure-details[${i}]`),
    ),
  };
}

/** Reads a TLS report from its JSON bytes (UTF-8); refuses it with the first problem found. */
export function readTls(bytes: Uint8Array): ParsedReport {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    return refuse(`JSON: ${(err as Error).message}`);
  }
  const root = objectOf(doc, 'the TLS report object');
  const range = objectOf(root['date-range'], 'date-range');
  const begin = dateTime(range['start-datetime'], 'date-range/start-datetime');
  const end = dateTime(range['end-datetime'], 'date-range/end-datetime');
  period(begin, end, 'date-range');
  const policies = listOf(root.policies).map((p, i) => readPolicy(p, i));
  if (policies.length === 0) refuse('policies: none listed');
  return {
    kind: 'tls',
    orgName: requiredText(root['organization-name'], 'organization-name'),
    reportId: requiredText(root['report-id'], 'report-id'),
    domain: policies[0]?.policy_domain ?? null,
    contact: textOf(root['contact-info']),
    begin,
    end,
    policy: null,
    records: [],
    failures: [],
    tlsPolicies: policies,
    messageCount: policies.reduce((sum, p) => sum + p.successful_sessions + p.failed_sessions, 0),
  };
}
