import { type Static, type TSchema, Type } from '@sinclair/typebox';

/** Nullable helper: the value, or null when the headers do not say. */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** What the intel module says about one hop IP (spec §2.8, the last six hop fields). */
export const HopEnrichmentSchema = Type.Object({
  asn: Nullable(Type.Integer({ description: 'Autonomous System Number announcing the hop IP' })),
  asn_name: Nullable(Type.String({ description: 'Name of that ASN' })),
  country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2 country of the hop IP' })),
  cloud_provider: Nullable(Type.String({ description: 'Cloud provider owning the hop IP, when detected' })),
  connection_type: Nullable(
    Type.String({ description: 'residential, datacenter, mobile, business or education' }),
  ),
  threat_score: Nullable(
    Type.Integer({ description: 'Threat score of the hop IP, 0 safe to 100 high risk' }),
  ),
});
export type HopEnrichment = Static<typeof HopEnrichmentSchema>;

export const ProtocolSchema = Type.Union(
  [Type.Literal('SMTP'), Type.Literal('ESMTP'), Type.Literal('ESMTPS')],
  {
    description:
      'SMTP, ESMTP or ESMTPS. ESMTPA→ESMTP, ESMTPSA→ESMTPS, SMTPS→ESMTPS, LMTP/UTF8SMTP families→ESMTP ' +
      '(their S forms →ESMTPS), Microsoft SMTP Server/SMTPSVC→ESMTP; TLS noted in the header upgrades to ESMTPS',
  },
);
export type Protocol = Static<typeof ProtocolSchema>;

/** One Received header, in delivery order (first hop first). */
export const HopSchema = Type.Object({
  from_host: Nullable(Type.String({ description: 'Host name the sending side used (rDNS or HELO)' })),
  from_ip: Nullable(
    Type.String({ description: 'Connecting IP recorded by the receiving server, normalized' }),
  ),
  by_host: Nullable(Type.String({ description: 'Host that received the message and wrote this header' })),
  protocol: Type.Union([ProtocolSchema, Type.Null()]),
  protocol_raw: Nullable(
    Type.String({ description: 'The header\'s own "with" words, e.g. ESMTPSA or HTTPS' }),
  ),
  timestamp: Nullable(Type.String({ description: 'RFC 3339 UTC time from the header date' })),
  delay: Nullable(
    Type.String({ description: 'Time since the previous dated hop, e.g. "2s", "1m 5s", "-3s" (negative)' }),
  ),
  delay_seconds: Nullable(Type.Integer({ description: 'The same delay in whole seconds' })),
  parsed: Type.Boolean({ description: 'false when the Received line could not be read (see anomalies)' }),
  ...HopEnrichmentSchema.properties,
});
export type Hop = Static<typeof HopSchema>;

export const SpfResultSchema = Type.Union(
  ['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy'].map((v) =>
    Type.Literal(v),
  ),
  {
    description:
      'SPF verdict (RFC 7208/8601): pass, fail, softfail, none; neutral, temperror, permerror, policy passed ' +
      'through as written; none also when the headers carry no SPF verdict',
  },
);

/** One method result of an Authentication-Results (or ARC-Authentication-Results) header. */
export const ResultEntrySchema = Type.Object({
  method: Type.String({ description: 'Method, lower case: spf, dkim, dmarc, arc, iprev, auth, ...' }),
  result: Type.String({ description: 'Result as the receiver wrote it, lower case: pass, fail, none, ...' }),
  reason: Nullable(Type.String({ description: 'reason= text, quotes removed, when given' })),
  properties: Type.Record(Type.String(), Type.String(), {
    description:
      'ptype.property=value pairs as written (header.d, header.s, smtp.mailfrom, header.from, ...)',
  }),
});
export type ResultEntry = Static<typeof ResultEntrySchema>;

/** One Authentication-Results header (RFC 8601), top-most first. */
export const AuthResultsHeaderSchema = Type.Object({
  authserv_id: Nullable(
    Type.String({ description: 'authserv-id naming the receiver that wrote it; null when it names none' }),
  ),
  trusted: Type.Boolean({
    description:
      'true when the authserv-id is one netrep trusts (RFC 8601 §5): the ids in NETREP_TRUSTED_AUTHSERV_IDS, ' +
      'else the top-most header and every header with its authserv-id',
  }),
  results: Type.Array(ResultEntrySchema, { description: 'Every result the header records, in order' }),
});
export type AuthResultsHeader = Static<typeof AuthResultsHeaderSchema>;

/** One dkim= result from any Authentication-Results header. */
export const DkimResultSchema = Type.Object({
  result: Type.String({ description: 'pass, fail, neutral, policy, none, temperror, permerror, ...' }),
  domain: Nullable(Type.String({ description: 'header.d of the result, else the domain of header.i' })),
  selector: Nullable(Type.String({ description: 'header.s of the result' })),
  reason: Nullable(Type.String({ description: 'reason= text when given' })),
  authserv_id: Nullable(Type.String({ description: 'authserv-id of the header that recorded it' })),
  trusted: Type.Boolean({ description: 'Whether that header is trusted (see authentication_results)' }),
});
export type DkimResult = Static<typeof DkimResultSchema>;

/** One DKIM-Signature header, as written (not verified). */
export const DkimSignatureSchema = Type.Object({
  domain: Nullable(Type.String({ description: 'd= signing domain' })),
  selector: Nullable(Type.String({ description: 's= selector' })),
  algorithm: Nullable(Type.String({ description: 'a= algorithm, e.g. rsa-sha256, ed25519-sha256' })),
});
export type DkimSignature = Static<typeof DkimSignatureSchema>;

export const ArcSealSchema = Type.Object({
  instance: Nullable(
    Type.Integer({ description: 'i= instance number (1-50); null when missing or invalid' }),
  ),
  cv: Nullable(
    Type.String({ description: 'cv= chain validation status the sealer recorded: none, pass or fail' }),
  ),
  domain: Nullable(Type.String({ description: 'd= sealing domain' })),
  selector: Nullable(Type.String({ description: 's= selector' })),
});

export const ArcResultsSchema = Type.Object({
  instance: Nullable(Type.Integer({ description: 'i= instance number; null when missing or invalid' })),
  authserv_id: Nullable(Type.String({ description: 'authserv-id of the sealer that wrote it' })),
  results: Type.Array(ResultEntrySchema, { description: 'Every result it records, in order' }),
});

/** The ARC chain (RFC 8617) as written: read, not verified. */
export const ArcChainSchema = Type.Object({
  instances: Type.Integer({
    description:
      'Distinct i= instances among the ARC-Seal, ARC-Message-Signature and ARC-Authentication-Results headers',
  }),
  seals: Type.Array(ArcSealSchema, { description: 'Every ARC-Seal header, top-most (newest) first' }),
  verdict: Nullable(
    Type.String({
      description:
        "cv= of the ARC-Seal with the highest instance (the last sealer's verdict); null without ARC-Seal",
    }),
  ),
  chain_problem: Nullable(
    Type.String({
      description:
        'First structural fault of the chain (RFC 8617 §5.2 steps 1-3: duplicate or missing instances, a set lacking ' +
        'one of its three headers, i=1 not cv=none, a later cv other than pass); null when the structure is sound or ' +
        'there is no chain. Signatures are not checked',
    }),
  ),
  authentication_results: Type.Array(ArcResultsSchema, {
    description: 'Every ARC-Authentication-Results header, top-most first',
  }),
});
export type ArcChain = Static<typeof ArcChainSchema>;

export const AuthenticationSchema = Type.Object({
  spf_result: SpfResultSchema,
  dkim_result: Type.Union([Type.Literal('present'), Type.Literal('absent')], {
    description:
      'present when the message carries a DKIM-Signature header or Authentication-Results records a dkim= result other than none',
  }),
  dkim_verdict: Nullable(
    Type.String({
      description: 'dkim= result from the chosen Authentication-Results (pass, fail, none, ...)',
    }),
  ),
  dkim_selector: Nullable(
    Type.String({ description: 's= of the chosen DKIM-Signature, else header.s of the dkim= result' }),
  ),
  dkim_domain: Nullable(
    Type.String({
      description: 'd= of the chosen DKIM-Signature, else header.d (or header.i) of the dkim= result',
    }),
  ),
  dmarc_result: Nullable(Type.String({ description: 'dmarc= result from Authentication-Results, if found' })),
  dmarc_policy: Type.Optional(
    Nullable(Type.String({ description: 'Published DMARC p= of the From domain (public route only)' })),
  ),
  arc_result: Nullable(Type.String({ description: 'arc= result, or cv= of the newest ARC-Seal' })),
  authserv_id: Nullable(Type.String({ description: 'authserv-id of the Authentication-Results used' })),
  authserv_id_trusted: Type.Boolean({
    description: 'Whether the Authentication-Results used for the fields above is trusted (false when none)',
  }),
  trust_source: Type.Union([Type.Literal('configured'), Type.Literal('topmost')], {
    description:
      'configured: the authserv-ids in NETREP_TRUSTED_AUTHSERV_IDS are trusted; topmost (the default): the ' +
      'top-most Authentication-Results header and its authserv-id',
  }),
  authentication_results: Type.Array(AuthResultsHeaderSchema, {
    description: 'Every Authentication-Results header (at most 50), top-most first',
  }),
  dkim_results: Type.Array(DkimResultSchema, {
    description:
      'Every dkim= result of every Authentication-Results header (at most 100), pass and fail alike',
  }),
  dkim_signatures: Type.Array(DkimSignatureSchema, {
    description: 'Every DKIM-Signature header (at most 50), top-most first',
  }),
  arc: ArcChainSchema,
});
export type Authentication = Static<typeof AuthenticationSchema>;

export const InfrastructureSchema = Type.Object({
  origin_ip: Nullable(Type.String({ description: 'IP of the first hop (delivery order) that records one' })),
  origin_public_ip: Nullable(
    Type.String({
      description: 'First globally routable IP in delivery order (skips RFC 1918, loopback, ...)',
    }),
  ),
  from_domain: Nullable(Type.String({ description: 'Domain of the From address' })),
  return_path_domain: Nullable(Type.String({ description: 'Domain of the Return-Path address' })),
  x_mailer: Nullable(Type.String({ description: 'X-Mailer header, RFC 2047 decoded' })),
  user_agent: Nullable(Type.String({ description: 'User-Agent header, RFC 2047 decoded' })),
});

/** Spec §2.8: the data of the header analysis. */
export const HeaderAnalysisSchema = Type.Object({
  received_chain: Type.Array(HopSchema, { description: 'One item per Received header, first hop first' }),
  authentication: AuthenticationSchema,
  infrastructure: InfrastructureSchema,
  anomalies: Type.Array(Type.String(), { description: 'Short plain sentences, one per finding' }),
});
export type HeaderAnalysis = Static<typeof HeaderAnalysisSchema>;

/** Request body of both header-analyzer routes. */
export const HeaderAnalyzerBodySchema = Type.Object({
  headers: Type.String({
    description: 'Raw header block or whole message (body ignored), at most 49152 bytes',
  }),
});
export type HeaderAnalyzerBody = Static<typeof HeaderAnalyzerBodySchema>;
