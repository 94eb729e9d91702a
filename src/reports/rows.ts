/** A report's stored form and back: typed columns for what later views select on, JSON for the rest. */
import { toIso } from '../core/clock.ts';
import type { RecordRow, RejectionRow, ReportRow } from './store.ts';
import type {
  AggregateRecord,
  FailureSample,
  ParsedReport,
  PolicyPublished,
  RejectedReport,
  ReportAnswer,
  ReportSummary,
  TlsPolicy,
} from './types.ts';

export function reportRow(
  ownerId: number,
  report: ParsedReport,
  format: string,
  receivedAt: number,
): Omit<ReportRow, 'id'> {
  return {
    owner_id: ownerId,
    kind: report.kind,
    org_name: report.orgName,
    report_id: report.reportId,
    domain: report.domain,
    contact: report.contact,
    begin_at: report.begin,
    end_at: report.end,
    policy: report.policy ? JSON.stringify(report.policy) : null,
    record_count: report.records.length + report.failures.length + report.tlsPolicies.length,
    message_count: report.messageCount,
    source_format: format,
    received_at: receivedAt,
  };
}

export function recordRows(report: ParsedReport): RecordRow[] {
  const aggregate = report.records.map((r, ordinal) => {
    const { source_ip, count, disposition, dkim, spf, header_from, ...rest } = r;
    return { ordinal, source_ip, count, disposition, dkim, spf, header_from, detail: JSON.stringify(rest) };
  });
  const failures = report.failures.map((f, ordinal) => ({
    ...emptyTyped(ordinal, f.source_ip, 1),
    detail: JSON.stringify(f),
  }));
  const tls = report.tlsPolicies.map((p, ordinal) => ({
    ...emptyTyped(ordinal, null, p.successful_sessions + p.failed_sessions),
    detail: JSON.stringify(p),
  }));
  return [...aggregate, ...failures, ...tls];
}

function emptyTyped(ordinal: number, sourceIp: string | null, count: number) {
  return { ordinal, source_ip: sourceIp, count, disposition: null, dkim: null, spf: null, header_from: null };
}

const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms));

export function summaryOf(r: ReportRow): ReportSummary {
  return {
    id: r.id,
    kind: r.kind as ReportSummary['kind'],
    org_name: r.org_name,
    report_id: r.report_id,
    domain: r.domain,
    contact: r.contact,
    begin: isoOrNull(r.begin_at),
    end: isoOrNull(r.end_at),
    record_count: r.record_count,
    message_count: r.message_count,
    source_format: r.source_format,
    received_at: toIso(r.received_at),
  };
}

export function answerOf(report: ReportRow, records: RecordRow[]): ReportAnswer {
  const answer: ReportAnswer = {
    ...summaryOf(report),
    policy_published: report.policy ? (JSON.parse(report.policy) as PolicyPublished) : null,
    records: [],
    failures: [],
    tls_policies: [],
  };
  for (const row of records) {
    const detail = JSON.parse(row.detail) as Record<string, unknown>;
    if (report.kind === 'aggregate')
      answer.records.push({
        source_ip: row.source_ip ?? '',
        count: row.count,
        disposition: row.disposition ?? '',
        dkim: row.dkim ?? '',
        spf: row.spf ?? '',
        header_from: row.header_from,
        ...(detail as Omit<
          AggregateRecord,
          'source_ip' | 'count' | 'disposition' | 'dkim' | 'spf' | 'header_from'
        >),
      });
    else if (report.kind === 'failure') answer.failures.push(detail as FailureSample);
    else answer.tls_policies.push(detail as TlsPolicy);
  }
  return answer;
}

export function rejectedOf(r: RejectionRow): RejectedReport {
  return {
    id: r.id,
    reason: r.reason,
    content_type: r.content_type,
    size: r.size,
    raw_base64: r.raw,
    raw_truncated: r.raw_truncated === 1,
    received_at: toIso(r.received_at),
  };
}
