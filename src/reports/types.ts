/**
 * Answer shapes of mail operators' reports (issue #38): DMARC aggregate (RFC 7489 §7.2 and
 * appendix C, DMARCbis/RFC 9990), DMARC failure (RFC 6591 ARF) and SMTP TLS (RFC 8460) reports.
 * One report answer carries every list, the ones of the other kinds empty (never absent).
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Text = (description: string) => Nullable(Type.String({ description }));
const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const ReportKind = Type.Union(
  [Type.Literal('aggregate'), Type.Literal('failure'), Type.Literal('tls')],
  {
    description: 'aggregate: DMARC aggregate (rua); failure: DMARC failure (ruf, ARF); tls: SMTP TLS report.',
  },
);
export type ReportKind = Static<typeof ReportKind>;

export const PolicyPublished = Type.Object(
  {
    domain: Type.String({ description: 'The domain whose policy was applied.' }),
    adkim: Text('DKIM alignment mode: r or s.'),
    aspf: Text('SPF alignment mode: r or s.'),
    p: Text('Policy: none, quarantine or reject.'),
    sp: Text('Subdomain policy.'),
    np: Text('Non-existent subdomain policy (DMARCbis).'),
    pct: Nullable(Type.Integer({ minimum: 0, maximum: 100, description: 'Percentage sampled (RFC 7489).' })),
    fo: Text('Failure reporting options.'),
    testing: Text('DMARCbis t= flag: y or n.'),
    discovery_method: Text('DMARCbis: psl or treewalk.'),
  },
  { description: 'The DMARC policy the reporter found published.' },
);
export type PolicyPublished = Static<typeof PolicyPublished>;

export const AuthResult = Type.Object({
  domain: Text('The authenticated domain (null when the reporter left it empty).'),
  selector: Text('DKIM selector.'),
  scope: Text('SPF scope: helo or mfrom.'),
  result: Type.String({ description: 'The raw DKIM or SPF result.' }),
  human_result: Text('Free text from the reporter.'),
});
export type AuthResult = Static<typeof AuthResult>;

export const PolicyReason = Type.Object({
  type: Type.String({
    description: 'forwarded, sampled_out, trusted_forwarder, mailing_list, local_policy, other, …',
  }),
  comment: Text('Free text from the reporter.'),
});

export const AggregateRecord = Type.Object(
  {
    source_ip: Type.String({ description: 'Sending address, normalized.' }),
    count: Count('Messages from that address with these results.'),
    disposition: Type.String({ description: 'none, quarantine, reject (pass: DMARCbis).' }),
    dkim: Type.String({ description: 'DMARC-aligned DKIM result: pass or fail.' }),
    spf: Type.String({ description: 'DMARC-aligned SPF result: pass or fail.' }),
    reasons: Type.Array(PolicyReason, { description: 'Why the policy was overridden.' }),
    header_from: Text('RFC5322.From domain.'),
    envelope_from: Text('RFC5321.MailFrom domain.'),
    envelope_to: Text('RFC5321.RcptTo domain.'),
    dkim_results: Type.Array(AuthResult, { description: 'Raw DKIM results.' }),
    spf_results: Type.Array(AuthResult, { description: 'Raw SPF results.' }),
  },
  { description: 'One row of an aggregate report, in the order of the file.' },
);
export type AggregateRecord = Static<typeof AggregateRecord>;

export const FailureSample = Type.Object(
  {
    source_ip: Text('Source-IP of the failing message.'),
    feedback_type: Type.String({
      description: 'Feedback-Type (auth-failure), or `text` when read from a plain-text report.',
    }),
    reported_domain: Text('Reported-Domain.'),
    arrival_date: Text('Arrival-Date as written.'),
    original_mail_from: Text('Original-Mail-From.'),
    original_rcpt_to: Text('Original-Rcpt-To.'),
    auth_failure: Text('Auth-Failure: dmarc, dkim, spf, adsp, bodyhash, revoked, signature.'),
    delivery_result: Text('Delivery-Result.'),
    dkim_domain: Text('DKIM-Domain.'),
    authentication_results: Text('Authentication-Results of the failing message.'),
    subject: Text('Subject of the failing message when its headers came with the report.'),
    message_id: Text('Message-ID of the failing message.'),
  },
  { description: 'A failure report’s sample: the ARF fields, or what a plain-text report states.' },
);
export type FailureSample = Static<typeof FailureSample>;

export const TlsFailure = Type.Object({
  result_type: Type.String({
    description: 'RFC 8460 §4.3 result type (starttls-not-supported, certificate-expired, …).',
  }),
  sending_mta_ip: Text('Sending MTA address, normalized.'),
  receiving_mx_hostname: Text('Receiving MX host name.'),
  receiving_mx_helo: Text('Receiving MX HELO.'),
  receiving_ip: Text('Receiving address, normalized.'),
  failed_session_count: Count('Sessions that failed this way.'),
  additional_information: Text('URI with more detail.'),
  failure_reason_code: Text('Free text from the reporter.'),
});

export const TlsPolicy = Type.Object(
  {
    policy_type: Type.String({ description: 'sts, tlsa or no-policy-found.' }),
    policy_domain: Type.String({ description: 'The policy’s domain.' }),
    policy_strings: Type.Array(Type.String(), { description: 'The policy as the reporter read it.' }),
    mx_hosts: Type.Array(Type.String(), { description: 'MX host patterns of an MTA-STS policy.' }),
    successful_sessions: Count('total-successful-session-count.'),
    failed_sessions: Count('total-failure-session-count.'),
    failures: Type.Array(TlsFailure, { description: 'failure-details.' }),
  },
  { description: 'One policy of a TLS report with its session counts.' },
);
export type TlsPolicy = Static<typeof TlsPolicy>;

export const ReportSummary = Type.Object(
  {
    id: Type.Integer({ description: 'Stored report id.' }),
    kind: ReportKind,
    org_name: Type.String({ description: 'The reporting organisation (or the report sender’s domain).' }),
    report_id: Type.String({ description: 'The reporter’s id of the report.' }),
    domain: Text('The domain reported on.'),
    contact: Text('Reporter contact address.'),
    begin: Nullable(Type.String({ format: 'date-time', description: 'Start of the period covered.' })),
    end: Nullable(Type.String({ format: 'date-time', description: 'End of the period covered.' })),
    record_count: Count('Rows, failure samples or TLS policies stored.'),
    message_count: Count('Messages (aggregate) or sessions (TLS) counted, 1 per failure report.'),
    source_format: Type.String({ description: 'How it arrived, outermost first: eml>zip>xml, gzip>json, …' }),
    received_at: Type.String({ format: 'date-time' }),
  },
  { description: 'A stored report without its rows.' },
);
export type ReportSummary = Static<typeof ReportSummary>;

export const ReportAnswer = Type.Composite(
  [
    ReportSummary,
    Type.Object({
      policy_published: Type.Union([PolicyPublished, Type.Null()], {
        description: 'Aggregate reports only.',
      }),
      records: Type.Array(AggregateRecord, { description: 'Aggregate rows; empty for other kinds.' }),
      failures: Type.Array(FailureSample, { description: 'The failure sample; empty for other kinds.' }),
      tls_policies: Type.Array(TlsPolicy, { description: 'TLS report policies; empty for other kinds.' }),
    }),
  ],
  { description: 'A stored report with everything read from it.' },
);
export type ReportAnswer = Static<typeof ReportAnswer>;

export const RejectedReport = Type.Object(
  {
    id: Type.Integer({ description: 'Rejected upload id.' }),
    reason: Type.String({ description: 'Why it was refused.' }),
    content_type: Text('Content-Type it was sent with.'),
    size: Count('Bytes received.'),
    raw_base64: Type.String({ description: 'The received bytes, base64, cut at the kept size.' }),
    raw_truncated: Type.Boolean({ description: 'True when only the first bytes were kept.' }),
    received_at: Type.String({ format: 'date-time' }),
  },
  { description: 'An upload that could not be stored as a report, kept for inspection.' },
);
export type RejectedReport = Static<typeof RejectedReport>;

/** A report as read from its document, before it is stored. */
export interface ParsedReport {
  kind: ReportKind;
  orgName: string;
  reportId: string;
  domain: string | null;
  contact: string | null;
  begin: number | null;
  end: number | null;
  policy: PolicyPublished | null;
  records: AggregateRecord[];
  failures: FailureSample[];
  tlsPolicies: TlsPolicy[];
  messageCount: number;
}
