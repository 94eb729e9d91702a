/**
 * DMARC aggregate reports: RFC 7489 appendix C and its DMARCbis successor (RFC 9990, which adds
 * np, testing, discovery_method and the disposition `pass`). Enumerated values are checked as the
 * schemas write them (lower case): a report saying `Pass` is refused, not guessed at.
 */
import {
  address,
  epochSeconds,
  integer,
  listOf,
  MAX_COUNT,
  objectOf,
  oneOf,
  optionalOneOf,
  period,
  refuse,
  requiredText,
  textOf,
} from './fields.ts';
import type { AggregateRecord, AuthResult, ParsedReport, PolicyPublished } from './types.ts';
import { decodeXml, parseXml } from './xml.ts';

const POLICIES = ['none', 'quarantine', 'reject'] as const;
const ALIGNMENT = ['r', 's'] as const;
const DISPOSITIONS = ['none', 'quarantine', 'reject', 'pass'] as const;
const ALIGNED = ['pass', 'fail'] as const;
const DKIM_RESULTS = ['none', 'pass', 'fail', 'policy', 'neutral', 'temperror', 'permerror'] as const;
const SPF_RESULTS = ['none', 'neutral', 'pass', 'fail', 'softfail', 'temperror', 'permerror'] as const;

type Node = Record<string, unknown>;

function readPolicy(node: Node): PolicyPublished {
  const pct = textOf(node.pct);
  return {
    domain: requiredText(node.domain, 'policy_published/domain').toLowerCase(),
    adkim: optionalOneOf(node.adkim, 'policy_published/adkim', ALIGNMENT),
    aspf: optionalOneOf(node.aspf, 'policy_published/aspf', ALIGNMENT),
    p: optionalOneOf(node.p, 'policy_published/p', POLICIES),
    sp: optionalOneOf(node.sp, 'policy_published/sp', POLICIES),
    np: optionalOneOf(node.np, 'policy_published/np', POLICIES),
    pct: pct === null ? null : integer(pct, 'policy_published/pct', 0, 100),
    fo: textOf(node.fo),
    testing: optionalOneOf(node.testing, 'policy_published/testing', ['y', 'n'] as const),
    discovery_method: textOf(node.discovery_method),
  };
}

function readAuth(value: unknown, where: string, results: readonly string[]): AuthResult[] {
  return listOf(value).map((item) => {
    const node = objectOf(item, where);
    return {
      // RFC 7489 requires the domain; reporters write <domain></domain> for SPF none (kept as null).
      domain: textOf(node.domain)?.toLowerCase() ?? null,
      selector: textOf(node.selector),
      scope: textOf(node.scope),
      result: oneOf(node.result, `${where}/result`, results),
      human_result: textOf(node.human_result),
    };
  });
}

function readRecord(item: unknown, n: number): AggregateRecord {
  const where = `record ${n}`;
  const record = objectOf(item, where);
  const row = objectOf(record.row, `${where}/row`);
  const evaluated = objectOf(row.policy_evaluated, `${where}/row/policy_evaluated`);
  const ids = (record.identifiers ?? {}) as Node;
  const auth = (record.auth_results ?? {}) as Node;
  return {
    source_ip: address(row.source_ip, `${where}/row/source_ip`),
    count: integer(row.count, `${where}/row/count`, 0, MAX_COUNT),
    disposition: oneOf(evaluated.disposition, `${where}/disposition`, DISPOSITIONS),
    dkim: oneOf(evaluated.dkim, `${where}/policy_evaluated/dkim`, ALIGNED),
    spf: oneOf(evaluated.spf, `${where}/policy_evaluated/spf`, ALIGNED),
    // An empty <reason><type/></reason> (some reporters write one) says nothing: dropped.
    reasons: listOf(evaluated.reason).flatMap((r) => {
      const type = textOf((r as Node).type);
      return type === null ? [] : [{ type, comment: textOf((r as Node).comment) }];
    }),
    header_from: textOf(ids.header_from)?.toLowerCase() ?? null,
    envelope_from: textOf(ids.envelope_from)?.toLowerCase() ?? null,
    envelope_to: textOf(ids.envelope_to)?.toLowerCase() ?? null,
    dkim_results: readAuth(auth.dkim, `${where}/auth_results/dkim`, DKIM_RESULTS),
    spf_results: readAuth(auth.spf, `${where}/auth_results/spf`, SPF_RESULTS),
  };
}

/** Reads an aggregate report from its XML bytes; refuses it with the first problem found. */
export function readAggregate(bytes: Uint8Array): ParsedReport {
  const doc = parseXml(decodeXml(bytes));
  const feedback = doc.feedback;
  if (!feedback || typeof feedback !== 'object') refuse('XML: the root element is not <feedback>');
  const root = feedback as Node;
  const meta = objectOf(root.report_metadata, 'report_metadata');
  const range = objectOf(meta.date_range, 'report_metadata/date_range');
  const begin = epochSeconds(range.begin, 'date_range/begin');
  const end = epochSeconds(range.end, 'date_range/end');
  period(begin, end, 'date_range');
  const policy = readPolicy(objectOf(root.policy_published, 'policy_published'));
  const records = listOf(root.record).map((r, i) => readRecord(r, i + 1));
  const contact = textOf(meta.email);
  // An empty org_name (seen in the wild) falls back to the contact address's domain.
  const orgName = textOf(meta.org_name) ?? contact?.split('@')[1]?.toLowerCase() ?? null;
  return {
    kind: 'aggregate',
    orgName: orgName ?? refuse('report_metadata/org_name is missing'),
    // Some reporters wrap the id in angle brackets (Mail::DMARC strips them too).
    reportId: requiredText(meta.report_id, 'report_metadata/report_id').replace(/^<(.*)>$/, '$1'),
    domain: policy.domain,
    contact,
    begin,
    end,
    policy,
    records,
    failures: [],
    tlsPolicies: [],
    messageCount: records.reduce((sum, r) => sum + r.count, 0),
  };
}
