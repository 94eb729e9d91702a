/**
 * Answer shapes of the per-domain report views (issue #38 item 2): the domains an owner has
 * reports for, a domain's DMARC summary over a period, its sending sources (by IP or by
 * organisation, with netrep's intel and sending reputation), failure samples and TLS failures.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { FailureSample, PolicyPublished } from './types.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Rate = Nullable(
  Type.Number({
    minimum: 0,
    maximum: 1,
    description: 'dmarc_pass / messages, 4 decimals; null with no messages.',
  }),
);
const Day = (description: string) => Type.String({ format: 'date', description });

export const Period = Type.Object(
  {
    from: Day('First UTC day of the period (a report counts by the UTC day its period begins).'),
    to: Day('Last UTC day of the period, inclusive.'),
  },
  { description: 'The period the answer covers.' },
);
export type Period = Static<typeof Period>;

export const Dispositions = Type.Object(
  {
    none: Count('Messages delivered with no policy applied.'),
    quarantine: Count('Messages quarantined.'),
    reject: Count('Messages rejected.'),
    pass: Count('DMARCbis (RFC 9990) disposition pass.'),
  },
  { description: 'Messages by the disposition the receiver applied.' },
);

const MessageSums = {
  messages: Count('Messages reported.'),
  dmarc_pass: Count('Messages with an aligned DKIM or SPF pass.'),
  dmarc_fail: Count('Messages with neither.'),
  spf_aligned_pass: Count('Messages whose DMARC-aligned SPF passed.'),
  dkim_aligned_pass: Count('Messages whose DMARC-aligned DKIM passed.'),
  dispositions: Dispositions,
};

export const ReportDomain = Type.Object({
  domain: Type.String({ description: 'The domain reported on (aggregate: the policy domain).' }),
  reports: Count('Stored reports of every kind.'),
  aggregate_reports: Count('DMARC aggregate reports.'),
  failure_reports: Count('DMARC failure reports.'),
  tls_reports: Count('SMTP TLS reports filed under the domain (its first policy’s domain).'),
  messages: Count('Messages in its aggregate reports.'),
  dmarc_pass: Count('Of those, messages with an aligned DKIM or SPF pass.'),
  dmarc_pass_rate: Rate,
  first_begin: Nullable(Type.String({ format: 'date-time', description: 'Earliest report period start.' })),
  last_end: Nullable(Type.String({ format: 'date-time', description: 'Latest report period end.' })),
});
export type ReportDomain = Static<typeof ReportDomain>;

export const Override = Type.Object({
  type: Type.String({ description: 'The reason type (forwarded, local_policy, mailing_list, other, …).' }),
  rows: Count('Report rows giving it.'),
  messages: Count('Messages of those rows.'),
});

export const SeenPolicy = Type.Composite(
  [Type.Omit(PolicyPublished, ['domain']), Type.Object({ reports: Count('Reports that saw it.') })],
  { description: 'A published policy as reporters found it, with how many reports saw it.' },
);

export const Reporter = Type.Object({
  org_name: Type.String({ description: 'The reporting organisation.' }),
  reports: Count('Its reports in the period.'),
  messages: Count('Messages in them.'),
});

export const DailyPoint = Type.Object({
  date: Day('A UTC day; every day of the period is listed, oldest first.'),
  messages: Count('Messages in reports beginning that day.'),
  dmarc_pass: Count('Of those, DMARC passes.'),
});

export const DomainSummary = Type.Object({
  domain: Type.String(),
  period: Period,
  reports: Count('Aggregate reports in the period.'),
  ...MessageSums,
  dmarc_pass_rate: Rate,
  overrides: Type.Array(Override, { description: 'Policy overrides by reason type, most messages first.' }),
  policies: Type.Array(SeenPolicy, { description: 'The published policies reporters saw.' }),
  reporters: Type.Array(Reporter, { description: 'Reporting organisations, by name.' }),
  daily: Type.Array(DailyPoint, { description: 'One point per UTC day of the period, for charts.' }),
});
export type DomainSummary = Static<typeof DomainSummary>;

const IntelFields = {
  asn: Nullable(
    Type.Integer({ description: 'Origin ASN (netrep’s dataset); null when unrouted or unknown.' }),
  ),
  asn_name: Nullable(Type.String({ description: 'Organisation of the ASN.' })),
};

export const IpSource = Type.Object({
  ip: Type.String({ description: 'The sending address.' }),
  ...MessageSums,
  reporters: Type.Array(Type.String(), { description: 'Organisations that reported it.' }),
  ...IntelFields,
  country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2.' })),
  connection_type: Nullable(
    Type.String({ description: 'residential, datacenter, mobile, business, education.' }),
  ),
  cloud_provider: Nullable(
    Type.String({ description: 'Cloud or CDN provider, when the dataset names one.' }),
  ),
  threat_score: Nullable(Type.Integer({ minimum: 0, maximum: 100, description: 'netrep threat score.' })),
  threat_level: Nullable(Type.String({ description: 'low, medium, high, critical.' })),
  reputation_score: Nullable(
    Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'Sending reputation; null for a non-public address.',
    }),
  ),
  reputation_level: Nullable(Type.String({ description: 'good, neutral, poor, bad.' })),
});
export type IpSource = Static<typeof IpSource>;

export const OrganizationSource = Type.Object({
  ...IntelFields,
  ip_count: Count('Distinct sending addresses.'),
  ...MessageSums,
  reporters: Type.Array(Type.String(), { description: 'Organisations that reported its addresses.' }),
  countries: Type.Array(Type.String(), { description: 'Countries of its addresses.' }),
  cloud_providers: Type.Array(Type.String(), { description: 'Cloud or CDN providers of its addresses.' }),
  threat_score_max: Nullable(
    Type.Integer({ minimum: 0, maximum: 100, description: 'Highest threat score.' }),
  ),
  reputation_score_min: Nullable(
    Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'Lowest sending reputation of its public addresses.',
    }),
  ),
});
export type OrganizationSource = Static<typeof OrganizationSource>;

export const SourceGroup = Type.Union([Type.Literal('ip'), Type.Literal('organization')]);
export type SourceGroup = Static<typeof SourceGroup>;

export const DomainSources = Type.Object({
  domain: Type.String(),
  period: Period,
  group: SourceGroup,
  sources: Type.Union([Type.Array(IpSource), Type.Array(OrganizationSource)], {
    description: 'group=ip: one row per address; group=organization: one per ASN (null: no ASN known).',
  }),
  total: Count('Rows in all.'),
  limit: Type.Integer(),
  offset: Type.Integer(),
});
export type DomainSources = Static<typeof DomainSources>;

export const StoredFailure = Type.Composite([
  Type.Object({
    report: Type.Integer({ description: 'Stored report id (GET /v1/email/reports/{id}).' }),
    org_name: Type.String({ description: 'The reporter (the report sender’s domain).' }),
    received_at: Type.String({ format: 'date-time' }),
  }),
  FailureSample,
]);

export const DomainFailures = Type.Object({
  domain: Type.String(),
  failures: Type.Array(StoredFailure, { description: 'Newest first.' }),
  total: Count('Samples in all.'),
  limit: Type.Integer(),
  offset: Type.Integer(),
});
export type DomainFailures = Static<typeof DomainFailures>;

export const TlsPolicyTotals = Type.Object({
  policy_type: Type.String({ description: 'sts, tlsa or no-policy-found.' }),
  policy_strings: Type.Array(Type.String(), { description: 'The policy as reporters read it.' }),
  mx_hosts: Type.Array(Type.String()),
  reports: Count('Reports naming this policy.'),
  successful_sessions: Count('Sessions that succeeded.'),
  failed_sessions: Count('Sessions that failed.'),
});

export const TlsFailureGroup = Type.Object({
  receiving_mx_hostname: Nullable(Type.String({ description: 'The receiving MX host.' })),
  result_type: Type.String({ description: 'RFC 8460 §4.3 result type.' }),
  failed_sessions: Count('Failed sessions.'),
  receiving_ips: Type.Array(Type.String(), { description: 'Receiving addresses named.' }),
  sending_mta_ips: Type.Array(Type.String(), { description: 'Sending MTAs named.' }),
  reporters: Type.Array(Type.String()),
});

export const DomainTls = Type.Object({
  domain: Type.String(),
  period: Period,
  reports: Count('TLS reports with a policy of the domain.'),
  successful_sessions: Count('Sessions that succeeded, every policy.'),
  failed_sessions: Count('Sessions that failed, every policy.'),
  policies: Type.Array(TlsPolicyTotals),
  failures: Type.Array(TlsFailureGroup, {
    description: 'Failures by receiving MTA and result type, most failed sessions first.',
  }),
});
export type DomainTls = Static<typeof DomainTls>;
