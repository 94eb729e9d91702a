/**
 * Answer shapes of email domain authentication (spec §2.7, CONTRACT §8). The authenticated
 * DNS route renames `score` to `domain_auth_score`; the tool routes return it as is.
 */
import { type Static, Type } from '@sinclair/typebox';
import { BimiResultSchema, MtaStsResultSchema, TlsRptResultSchema } from './policy-types.ts';

/**
 * What the DNS said about one record (issue 31, RFC 7208/7489 vocabulary): `found`; `absent`
 * (NXDOMAIN or no such record, answered); `temperror` (timeout, SERVFAIL, refused, network
 * error, the deadline or the budget: the record could not be checked).
 */
export const DnsStatusSchema = Type.Union(
  [Type.Literal('found'), Type.Literal('absent'), Type.Literal('temperror')],
  {
    description:
      'found; absent (NXDOMAIN or no such record, answered); temperror (could not check: timeout, SERVFAIL, refused, network error, deadline or budget)',
  },
);

const Nullable = <T extends ReturnType<typeof Type.String | typeof Type.Integer>>(
  schema: T,
  description: string,
) => Type.Union([schema, Type.Null()], { description });

export const MxHostSchema = Type.Object({
  exchange: Type.String({ description: 'MX host name, lower case, no trailing dot' }),
  preference: Type.Integer({ description: 'MX preference (lower is tried first)' }),
  addresses: Type.Array(Type.String(), { description: 'IPv4 and IPv6 addresses the host resolves to' }),
  resolves: Type.Boolean({ description: 'true when the host has at least one A or AAAA record' }),
});

export const MxResultSchema = Type.Object({
  records: Type.Array(Type.String(), { description: 'MX host names sorted by preference, then name' }),
  hosts: Type.Array(MxHostSchema, { description: 'MX hosts with preference and resolved addresses' }),
  null_mx: Type.Boolean({ description: 'the domain publishes a null MX (RFC 7505): it accepts no mail' }),
  is_valid: Type.Boolean({ description: 'at least one MX host resolves to an address' }),
  errors: Type.Array(Type.String(), { description: 'problems found, empty when none' }),
});

export const SpfTermSchema = Type.Object({
  raw: Type.String({ description: 'the term as written' }),
  qualifier: Type.Union([Type.Literal('+'), Type.Literal('-'), Type.Literal('~'), Type.Literal('?')], {
    description: 'qualifier (+ pass, - fail, ~ softfail, ? neutral)',
  }),
  mechanism: Type.String({ description: 'all, include, a, mx, ptr, ip4, ip6 or exists' }),
  value: Nullable(
    Type.String(),
    'domain-spec, or for ip4 and ip6 the network as written with its prefix length (192.0.2.0/24); null when absent',
  ),
  ip4_cidr_length: Nullable(
    Type.Integer(),
    'IPv4 prefix length of ip4, a or mx (ip4-cidr-length); null when absent',
  ),
  ip6_cidr_length: Nullable(
    Type.Integer(),
    'IPv6 prefix length of ip6, a or mx (ip6-cidr-length); null when absent',
  ),
});

export const SpfModifierSchema = Type.Object({
  raw: Type.String({ description: 'the modifier as written' }),
  name: Type.String({ description: 'modifier name, lower case (redirect, exp or unknown names)' }),
  value: Type.String({ description: 'modifier value' }),
});

export const SpfResultSchema = Type.Object({
  found: Type.Boolean({ description: 'at least one v=spf1 TXT record exists (see status and record_count)' }),
  record_count: Type.Integer({
    description: 'number of v=spf1 TXT records at the domain (RFC 7208 allows one)',
  }),
  status: Type.Union(
    [
      Type.Literal('valid'),
      Type.Literal('none'),
      Type.Literal('multiple_records'),
      Type.Literal('permerror'),
      Type.Literal('temperror'),
    ],
    {
      description:
        'valid: one record without errors; none: no v=spf1 record; multiple_records: more than one (a permerror, RFC 7208 §4.5); permerror: one record with validation_errors; temperror: only DNS failures kept it from being checked',
    },
  ),
  raw: Nullable(Type.String(), 'the SPF record; null when none (the first one when several)'),
  mechanisms: Type.Array(SpfTermSchema, { description: 'mechanisms in order' }),
  modifiers: Type.Array(SpfModifierSchema, { description: 'modifiers (redirect, exp, unknown)' }),
  all_qualifier: Type.Union(
    [Type.Literal('+'), Type.Literal('-'), Type.Literal('~'), Type.Literal('?'), Type.Null()],
    {
      description: 'qualifier of the final all, followed through redirect=; null when the policy has no all',
    },
  ),
  is_valid: Type.Boolean({ description: 'one syntactically valid record within the lookup limits' }),
  is_permissive: Type.Boolean({ description: 'true when the policy ends in +all (anyone may send)' }),
  validation_errors: Type.Array(Type.String(), {
    description: 'errors that make the policy a permerror or temperror',
  }),
  warnings: Type.Array(Type.String(), { description: 'non-fatal findings (ptr use, unknown modifiers)' }),
  dns_lookup_count: Type.Integer({
    description: 'DNS-querying terms counted recursively through include and redirect',
  }),
  exceeds_lookups: Type.Boolean({ description: 'dns_lookup_count is over the RFC 7208 limit of 10' }),
  void_lookup_count: Type.Integer({ description: 'lookups that returned NXDOMAIN or no records' }),
  exceeds_void_lookups: Type.Boolean({ description: 'void_lookup_count is over the RFC 7208 limit of 2' }),
  includes: Type.Array(Type.String(), {
    description: 'domains visited through include and redirect, in order',
  }),
});

export const DkimResultSchema = Type.Object({
  selector: Type.String({ description: 'DKIM selector' }),
  record_domain: Type.String({ description: '<selector>._domainkey.<domain>' }),
  found: Type.Boolean({ description: 'a DKIM key record exists at the selector' }),
  raw: Nullable(Type.String(), 'the key record; null when not found'),
  version: Nullable(Type.String(), 'v= tag (DKIM1) when present'),
  key_type: Type.Union([Type.Literal('rsa'), Type.Literal('ed25519'), Type.Null()], {
    description: 'k= tag (default rsa); null when not found or unknown',
  }),
  key_bits: Nullable(
    Type.Integer(),
    'key size read from the public key itself (RSA modulus bits, 256 for ed25519)',
  ),
  hash_algorithms: Type.Array(Type.String(), { description: 'h= tag; empty means all allowed' }),
  service_type: Nullable(Type.String(), 's= tag (email or *)'),
  flags: Type.Array(Type.String(), { description: 't= flags (y testing, s strict identity)' }),
  testing: Type.Boolean({ description: 't=y: the domain is testing DKIM' }),
  revoked: Type.Boolean({ description: 'p= is empty: the key is revoked (RFC 6376 §3.6.1)' }),
  notes: Nullable(Type.String(), 'n= tag'),
  is_valid: Type.Boolean({ description: 'a usable public key of a supported type and size' }),
  validation_errors: Type.Array(Type.String(), { description: 'problems found, empty when none' }),
});

export const DmarcResultSchema = Type.Object({
  found: Type.Boolean({ description: 'a DMARC record applies (at the domain or its organizational domain)' }),
  raw: Nullable(Type.String(), 'the DMARC record; null when none'),
  version: Nullable(Type.String(), 'v= tag (DMARC1)'),
  policy: Type.Union(
    [Type.Literal('none'), Type.Literal('quarantine'), Type.Literal('reject'), Type.Null()],
    {
      description: 'p= tag',
    },
  ),
  subdomain_policy: Type.Union(
    [Type.Literal('none'), Type.Literal('quarantine'), Type.Literal('reject'), Type.Null()],
    {
      description: 'sp= tag; defaults to policy when omitted',
    },
  ),
  effective_policy: Type.Union(
    [Type.Literal('none'), Type.Literal('quarantine'), Type.Literal('reject'), Type.Null()],
    {
      description:
        'policy applied to this domain: subdomain_policy when inherited from the organizational domain',
    },
  ),
  percentage: Type.Integer({ description: 'pct= tag (0-100, default 100)' }),
  aggregate_report_uris: Type.Array(Type.String(), { description: 'rua= URIs' }),
  forensic_report_uris: Type.Array(Type.String(), { description: 'ruf= URIs' }),
  dkim_alignment: Type.Union([Type.Literal('r'), Type.Literal('s')], {
    description: 'adkim= (r relaxed, s strict)',
  }),
  spf_alignment: Type.Union([Type.Literal('r'), Type.Literal('s')], {
    description: 'aspf= (r relaxed, s strict)',
  }),
  failure_options: Type.String({ description: 'fo= tag (default 0)' }),
  report_format: Type.String({ description: 'rf= tag (default afrf)' }),
  report_interval: Type.Integer({ description: 'ri= tag in seconds (default 86400)' }),
  organizational_domain: Type.String({ description: 'organizational domain from the Public Suffix List' }),
  record_domain: Nullable(Type.String(), 'domain whose _dmarc record was used; null when none'),
  inherited: Type.Boolean({ description: 'the record was taken from the organizational domain' }),
  partial_rollout: Type.Boolean({ description: 'pct is below 100' }),
  no_visibility: Type.Boolean({ description: 'no aggregate reporting URI (rua)' }),
  strength_rating: Type.Union([Type.Literal('weak'), Type.Literal('moderate'), Type.Literal('strong')], {
    description:
      'strong: reject at 100 %; moderate: quarantine, or reject below 100 %; weak: none, missing or invalid',
  }),
  is_valid: Type.Boolean({ description: 'one syntactically valid record with a valid p=' }),
  validation_errors: Type.Array(Type.String(), {
    description: 'invalid or duplicate tags, multiple records',
  }),
  warnings: Type.Array(Type.String(), { description: 'non-fatal findings (unknown tags, ignored values)' }),
});

/** What the DNS said about each record of the check (issue 31). */
export const RecordStatusSchema = Type.Object({
  mx: Type.Union([Type.Literal('found'), Type.Literal('absent'), Type.Literal('temperror')], {
    description:
      'found; absent (no MX record, answered); temperror: could not check (the MX query failed, or no host resolves and some host lookups failed)',
  }),
  spf: Type.Union([Type.Literal('found'), Type.Literal('absent'), Type.Literal('temperror')], {
    description:
      'found; absent (no v=spf1 record, answered); temperror: could not check (the record, or a lookup its evaluation needs, failed and nothing else decides it)',
  }),
  dkim: Type.Record(Type.String(), DnsStatusSchema, {
    description: 'every selector probed (the default ones included), in probe order',
  }),
  dmarc: Type.Union([Type.Literal('found'), Type.Literal('absent'), Type.Literal('temperror')], {
    description:
      'found; absent (no record at the domain nor its organizational domain, answered); temperror: could not check',
  }),
});

/** One DNS query of the check that could not be read (issue 31). */
export const UncheckedQuerySchema = Type.Object({
  record: Type.Union([Type.Literal('mx'), Type.Literal('spf'), Type.Literal('dkim'), Type.Literal('dmarc')], {
    description: 'the record whose check needed the query',
  }),
  query: Type.String({ description: 'the name and type asked, e.g. "_spf.example.com TXT"' }),
  error: Type.String({
    description: 'TIMEOUT, SERVFAIL, REFUSED, FORMERR, DEADLINE, BUDGET or OTHER (network error)',
  }),
});

export const DnsStatsSchema = Type.Object({
  lookups: Type.Integer({ description: 'DNS queries sent for this check' }),
  max_lookups: Type.Integer({ description: 'lookup budget of one check' }),
  concurrency: Type.Integer({ description: 'queries allowed in flight at once' }),
  deadline_ms: Type.Integer({ description: 'total time allowed for the check' }),
  elapsed_ms: Type.Integer({ description: 'time the check took' }),
  deadline_exceeded: Type.Boolean({ description: 'some answers were cut off by the deadline' }),
  budget_exhausted: Type.Boolean({ description: 'some queries were not sent because the budget was spent' }),
  errors: Type.Record(Type.String(), Type.Integer(), {
    description: 'failed queries by class (NXDOMAIN, TIMEOUT, ...)',
  }),
});

export const DomainAuthResultSchema = Type.Object({
  domain: Type.String({ description: 'the checked domain, normalized (lower case, A-labels)' }),
  score: Type.Integer({
    minimum: 0,
    maximum: 100,
    description: 'MX 10 + SPF 25 + DKIM 30 + DMARC 35 points',
  }),
  grade: Type.Union(
    [Type.Literal('A'), Type.Literal('B'), Type.Literal('C'), Type.Literal('D'), Type.Literal('F')],
    {
      description: 'A 90-100, B 75-89, C 55-74, D 35-54, F 0-34',
    },
  ),
  mx: MxResultSchema,
  spf: SpfResultSchema,
  dkim: Type.Array(DkimResultSchema, {
    description: 'one entry per selector (explicit: all; default set: found only)',
  }),
  dmarc: DmarcResultSchema,
  mta_sts: MtaStsResultSchema,
  tls_rpt: TlsRptResultSchema,
  bimi: BimiResultSchema,
  recommendations: Type.Array(Type.String(), {
    description:
      'deterministic advice; every point lost is explained (MTA-STS, TLS-RPT and BIMI advice is in their own recommendations)',
  }),
  checked_at: Type.String({ description: 'when the check ran (RFC 3339)' }),
  dns: DnsStatsSchema,
  record_status: RecordStatusSchema,
  complete: Type.Boolean({
    description:
      'every query of the graded records (MX, SPF, DKIM, DMARC) was answered (MTA-STS, TLS-RPT and BIMI carry their own status); false: the grade counts only what was read (records that could not be checked earn no points and get no advice to publish them), see unchecked',
  }),
  unchecked: Type.Array(UncheckedQuerySchema, {
    description: 'queries that could not be read (record order, then name); empty when complete',
  }),
});

/** The authenticated DNS route's answer: the same result with `score` named `domain_auth_score` (spec §2.7). */
const { domain: domainField, score: scoreField, ...restOfResult } = DomainAuthResultSchema.properties;
export const DomainDnsResultSchema = Type.Object({
  domain: domainField,
  domain_auth_score: scoreField,
  ...restOfResult,
});

export const SpfCheckResultSchema = Type.Object({
  result: Type.Union(
    ['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror'].map((r) => Type.Literal(r)),
    { description: 'RFC 7208 check_host() result' },
  ),
  domain: Type.String({ description: 'domain checked' }),
  ip: Type.String({ description: 'client IP, normalized' }),
  sender: Type.String({ description: 'sender used for macros (postmaster@domain when none)' }),
  mechanism: Nullable(Type.String(), 'the term that decided the result; null for default and errors'),
  mechanism_domain: Nullable(Type.String(), 'domain whose record held that term'),
  explanation: Nullable(Type.String(), 'expanded exp= text on fail'),
  reason: Type.String({ description: 'why, in RFC wording' }),
  dns_lookups: Type.Integer({ description: 'DNS-querying terms evaluated (limit 10)' }),
  void_lookups: Type.Integer({ description: 'lookups with no answer (limit 2)' }),
});

export type MxResult = Static<typeof MxResultSchema>;
export type MxHost = Static<typeof MxHostSchema>;
export type SpfResult = Static<typeof SpfResultSchema>;
export type DkimResult = Static<typeof DkimResultSchema>;
export type DmarcResult = Static<typeof DmarcResultSchema>;
export type DnsStats = Static<typeof DnsStatsSchema>;
export type DnsStatus = Static<typeof DnsStatusSchema>;
export type UncheckedQuery = Static<typeof UncheckedQuerySchema>;
/** A record's facts and what the DNS said about it (the status goes to `record_status`). */
export interface Checked<T> {
  result: T;
  status: DnsStatus;
}
export type DomainAuthResult = Static<typeof DomainAuthResultSchema>;
export type DomainDnsResult = Static<typeof DomainDnsResultSchema>;
