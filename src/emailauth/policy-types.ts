/**
 * Answer shapes of the domain check's transport and brand records (issue 38): MTA-STS (RFC
 * 8461), TLS-RPT (RFC 8460) and BIMI. They earn no points (the score is CONTRACT §8's); each
 * carries its own findings and recommendations.
 */
import { type Static, Type } from '@sinclair/typebox';

const Nullable = <T extends ReturnType<typeof Type.String | typeof Type.Integer>>(
  schema: T,
  description: string,
) => Type.Union([schema, Type.Null()], { description });

const RecordStatus = Type.Union([Type.Literal('found'), Type.Literal('absent'), Type.Literal('temperror')], {
  description:
    'found; absent (no such record, answered); temperror (could not check: timeout, SERVFAIL, refused, network error, deadline or budget)',
});

const Findings = {
  errors: Type.Array(Type.String(), { description: 'problems that make the record or policy unusable' }),
  warnings: Type.Array(Type.String(), { description: 'non-fatal findings' }),
  recommendations: Type.Array(Type.String(), {
    description: 'what to do about this record (no points: the score counts MX, SPF, DKIM and DMARC only)',
  }),
};

export const MtaStsPolicySchema = Type.Object({
  url: Type.String({ description: 'https://mta-sts.<domain>/.well-known/mta-sts.txt' }),
  address: Nullable(Type.String(), 'the address connected to; null when none was (refused or unresolved)'),
  http_status: Nullable(Type.Integer(), 'HTTP status of the answer; null when there was none'),
  fetched: Type.Boolean({ description: 'a 200 answer was read whole over a valid certificate' }),
  version: Nullable(Type.String(), 'version: field (STSv1)'),
  mode: Type.Union([Type.Literal('enforce'), Type.Literal('testing'), Type.Literal('none'), Type.Null()], {
    description: 'mode: field; null when missing or invalid',
  }),
  mx: Type.Array(Type.String(), { description: 'mx: patterns in order (a leading *. matches one label)' }),
  max_age: Nullable(Type.Integer(), 'max_age: in seconds (at most 31557600)'),
  is_valid: Type.Boolean({ description: 'fetched and every field valid' }),
  errors: Type.Array(Type.String(), { description: 'fetch and syntax problems' }),
});

export const MtaStsResultSchema = Type.Object({
  status: RecordStatus,
  record_domain: Type.String({ description: '_mta-sts.<domain>' }),
  raw: Nullable(Type.String(), 'the v=STSv1 TXT record; null when none'),
  id: Nullable(Type.String(), 'id= (1-32 letters and digits)'),
  record_valid: Type.Boolean({ description: 'exactly one TXT record, strictly of the RFC 8461 §3.1 form' }),
  policy: Type.Union([MtaStsPolicySchema, Type.Null()], {
    description: 'the policy fetched over HTTPS (no redirects, 64 KiB at most); null when no TXT record',
  }),
  unmatched_mx: Type.Array(Type.String(), {
    description: 'MX hosts no mx: pattern matches (senders enforcing the policy will not deliver to them)',
  }),
  is_valid: Type.Boolean({
    description: 'valid record and policy, mode enforce or testing, every MX host matched',
  }),
  ...Findings,
});

export const TlsRptResultSchema = Type.Object({
  status: RecordStatus,
  record_domain: Type.String({ description: '_smtp._tls.<domain>' }),
  raw: Nullable(Type.String(), 'the v=TLSRPTv1 TXT record; null when none'),
  rua: Type.Array(Type.String(), { description: 'rua= report URIs (mailto: or https:)' }),
  is_valid: Type.Boolean({ description: 'exactly one record, v=TLSRPTv1 first, valid rua=' }),
  ...Findings,
});

export const BimiResultSchema = Type.Object({
  status: RecordStatus,
  record_domain: Type.String({ description: 'default._bimi.<domain>' }),
  raw: Nullable(Type.String(), 'the v=BIMI1 TXT record; null when none'),
  logo_url: Nullable(Type.String(), 'l=: the SVG Tiny PS logo (https); null when omitted or empty'),
  authority_url: Nullable(
    Type.String(),
    'a=: the VMC or CMC certificate (https, PEM); null when omitted or empty',
  ),
  declined: Type.Boolean({ description: 'l= is empty: the domain declines to show a logo' }),
  dmarc_ready: Type.Boolean({
    description: 'DMARC is at enforcement (p=quarantine at 100 % or p=reject), as receivers require for BIMI',
  }),
  is_valid: Type.Boolean({ description: 'one record, v=BIMI1 first, https locations, DMARC at enforcement' }),
  ...Findings,
});

export type MtaStsPolicy = Static<typeof MtaStsPolicySchema>;
export type MtaStsResult = Static<typeof MtaStsResultSchema>;
export type TlsRptResult = Static<typeof TlsRptResultSchema>;
export type BimiResult = Static<typeof BimiResultSchema>;
