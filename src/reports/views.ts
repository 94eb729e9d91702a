/**
 * Per-domain views of an owner's reports (issue #38 item 2). Sums come from SQL over the typed
 * columns (store-views.ts); only policy override reasons and TLS policies are read from the JSON
 * detail. A domain with no reports answers empty views, not 404: "nothing reported" is an answer.
 */
import { toIso } from '../core/clock.ts';
import type { Store } from '../store/index.ts';
import { createViewStore, type IpSums, type Scope, type Sums } from './store-views.ts';
import type { AggregateRecord, FailureSample, PolicyPublished } from './types.ts';
import { DAY_MS, dayText, type PeriodQuery, periodOf } from './view-params.ts';
import type {
  DomainFailures,
  DomainSources,
  DomainSummary,
  DomainTls,
  IpSource,
  OrganizationSource,
  Period,
  ReportDomain,
  SourceGroup,
} from './view-types.ts';
import { tlsOf } from './views-tls.ts';

/** What netrep knows of a sending address, from the serving dataset and the reputation model. */
export interface SourceIntel {
  asn: number | null;
  asn_name: string | null;
  country: string | null;
  connection_type: string | null;
  cloud_provider: string | null;
  threat_score: number | null;
  threat_level: string | null;
}

export interface ViewDeps {
  store: Store;
  /** The dataset's facts of one address; null when none (no dataset loaded, no record). */
  intelOf(ip: string): SourceIntel | null;
  /** Sending reputation of addresses (public ones; others absent from the map). */
  reputationOf(ips: string[]): Promise<Map<string, { score: number; level: string }>>;
}

export interface ReportViews {
  domains(
    ownerId: number,
    limit: number,
    offset: number,
  ): Promise<{ domains: ReportDomain[]; total: number }>;
  summary(ownerId: number, domain: string, q: PeriodQuery): Promise<DomainSummary>;
  sources(
    ownerId: number,
    domain: string,
    q: PeriodQuery & { group: SourceGroup; limit: number; offset: number },
  ): Promise<DomainSources>;
  failures(
    ownerId: number,
    domain: string,
    q: PeriodQuery & { limit: number; offset: number },
  ): Promise<DomainFailures>;
  tls(ownerId: number, domain: string, q: PeriodQuery): Promise<DomainTls>;
}

const periodText = (p: { from: number; to: number }): Period => ({
  from: dayText(p.from),
  to: dayText(p.to),
});
const rateOf = (pass: number, messages: number) =>
  messages === 0 ? null : Math.round((pass / messages) * 10_000) / 10_000;

function messageSums(s: Sums) {
  return {
    messages: s.messages,
    dmarc_pass: s.dmarc_pass,
    dmarc_fail: s.messages - s.dmarc_pass,
    spf_aligned_pass: s.spf_aligned_pass,
    dkim_aligned_pass: s.dkim_aligned_pass,
    dispositions: { none: s.none, quarantine: s.quarantine, reject: s.reject, pass: s.pass },
  };
}

/** Overrides by reason type: a row giving two types counts for each. */
function overridesOf(rows: { count: number; detail: string }[]): DomainSummary['overrides'] {
  const byType = new Map<string, { type: string; rows: number; messages: number }>();
  for (const row of rows) {
    const { reasons } = JSON.parse(row.detail) as Pick<AggregateRecord, 'reasons'>;
    for (const type of new Set(reasons.map((r) => r.type))) {
      const entry = byType.get(type) ?? { type, rows: 0, messages: 0 };
      entry.rows++;
      entry.messages += row.count;
      byType.set(type, entry);
    }
  }
  return [...byType.values()].sort((a, b) => b.messages - a.messages || a.type.localeCompare(b.type));
}

function policiesOf(rows: { policy: string | null; reports: number }[]): DomainSummary['policies'] {
  return rows
    .filter((r) => r.policy !== null)
    .map((r) => {
      const { domain: _domain, ...policy } = JSON.parse(r.policy as string) as PolicyPublished;
      return { ...policy, reports: r.reports };
    })
    .sort((a, b) => b.reports - a.reports || JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

function dailyOf(
  period: { from: number; to: number },
  rows: { day: number; messages: number; dmarc_pass: number }[],
) {
  const byDay = new Map(rows.map((r) => [r.day * DAY_MS, r]));
  const out: DomainSummary['daily'] = [];
  for (let day = period.from; day <= period.to; day += DAY_MS) {
    const r = byDay.get(day);
    out.push({ date: dayText(day), messages: r?.messages ?? 0, dmarc_pass: r?.dmarc_pass ?? 0 });
  }
  return out;
}

const sorted = (values: Iterable<string | null>) =>
  [...new Set([...values].filter((v): v is string => v !== null))].sort();

function ipSourceOf(row: IpSums, reporters: string[], intel: SourceIntel | null): IpSource {
  return {
    ip: row.source_ip,
    ...messageSums(row),
    reporters,
    asn: intel?.asn ?? null,
    asn_name: intel?.asn_name ?? null,
    country: intel?.country ?? null,
    connection_type: intel?.connection_type ?? null,
    cloud_provider: intel?.cloud_provider ?? null,
    threat_score: intel?.threat_score ?? null,
    threat_level: intel?.threat_level ?? null,
    reputation_score: null,
    reputation_level: null,
  };
}

function addSums(into: Sums, s: Sums): void {
  for (const k of Object.keys(into) as (keyof Sums)[]) into[k] += s[k];
}

/** IP rows grouped by ASN (null: no ASN known), most messages first, then by ASN. */
function byOrganization(ips: IpSource[], sums: Map<string, IpSums>) {
  const groups = new Map<string, { ips: IpSource[]; sums: Sums }>();
  for (const ip of ips) {
    const key = String(ip.asn);
    const g = groups.get(key) ?? {
      ips: [],
      sums: {
        messages: 0,
        dmarc_pass: 0,
        spf_aligned_pass: 0,
        dkim_aligned_pass: 0,
        none: 0,
        quarantine: 0,
        reject: 0,
        pass: 0,
      },
    };
    g.ips.push(ip);
    addSums(g.sums, sums.get(ip.ip) as IpSums);
    groups.set(key, g);
  }
  return [...groups.values()]
    .sort((a, b) => b.sums.messages - a.sums.messages || (a.ips[0]?.asn ?? -1) - (b.ips[0]?.asn ?? -1))
    .map((g) => ({ ips: g.ips, row: g.sums }));
}

function organizationOf(g: { ips: IpSource[]; row: Sums }): OrganizationSource {
  const threats = g.ips.flatMap((i) => (i.threat_score === null ? [] : [i.threat_score]));
  const reputations = g.ips.flatMap((i) => (i.reputation_score === null ? [] : [i.reputation_score]));
  return {
    asn: g.ips[0]?.asn ?? null,
    asn_name: g.ips.find((i) => i.asn_name !== null)?.asn_name ?? null,
    ip_count: g.ips.length,
    ...messageSums(g.row),
    reporters: sorted(g.ips.flatMap((i) => i.reporters)),
    countries: sorted(g.ips.map((i) => i.country)),
    cloud_providers: sorted(g.ips.map((i) => i.cloud_provider)),
    threat_score_max: threats.length ? Math.max(...threats) : null,
    reputation_score_min: reputations.length ? Math.min(...reputations) : null,
  };
}

export function createReportViews(deps: ViewDeps & { now: () => number }): ReportViews {
  const store = createViewStore(deps.store);
  const scopeOf = async (ownerId: number, domain: string, q: PeriodQuery, kind: 'aggregate' | 'tls') => {
    const latest =
      q.from !== undefined && q.to !== undefined ? null : await store.latestBegin(ownerId, domain, kind);
    const p = periodOf(q, latest, deps.now());
    const scope: Scope = { ownerId, domain, from: p.from, to: p.to + DAY_MS };
    return { scope, period: p };
  };

  /** Every source row of the scope with its reporters and intel (the page's reputation added later). */
  async function ipRows(scope: Scope, page?: { limit: number; offset: number }) {
    const { rows, total } = await store.byIp(scope, page);
    const seen = await store.ipReporters(scope, page ? rows.map((r) => r.source_ip) : undefined);
    const reporters = new Map<string, string[]>();
    for (const s of seen) reporters.set(s.source_ip, [...(reporters.get(s.source_ip) ?? []), s.org_name]);
    const ips = rows.map((r) =>
      ipSourceOf(r, sorted(reporters.get(r.source_ip) ?? []), deps.intelOf(r.source_ip)),
    );
    return { ips, total, sums: new Map(rows.map((r) => [r.source_ip, r])) };
  }

  async function withReputation(ips: IpSource[]): Promise<void> {
    const scores = await deps.reputationOf(ips.map((i) => i.ip));
    for (const ip of ips) {
      const r = scores.get(ip.ip);
      ip.reputation_score = r?.score ?? null;
      ip.reputation_level = r?.level ?? null;
    }
  }

  return {
    async domains(ownerId, limit, offset) {
      const { rows, total } = await store.domains(ownerId, limit, offset);
      const passes = new Map(
        (
          await store.domainPasses(
            ownerId,
            rows.map((r) => r.domain),
          )
        ).map((p) => [p.domain, p]),
      );
      const domains = rows.map((r) => {
        const p = passes.get(r.domain) ?? { messages: 0, dmarc_pass: 0 };
        return {
          ...r,
          messages: p.messages,
          dmarc_pass: p.dmarc_pass,
          dmarc_pass_rate: rateOf(p.dmarc_pass, p.messages),
          first_begin: r.first_begin === null ? null : toIso(r.first_begin),
          last_end: r.last_end === null ? null : toIso(r.last_end),
        };
      });
      return { domains, total };
    },

    async summary(ownerId, domain, q) {
      const { scope, period } = await scopeOf(ownerId, domain, q, 'aggregate');
      const [totals, daily, reporters, policies, overridden] = await Promise.all([
        store.totals(scope),
        store.daily(scope),
        store.reporters(scope),
        store.policies(scope),
        store.overridden(scope),
      ]);
      return {
        domain,
        period: periodText(period),
        reports: totals.reports,
        ...messageSums(totals),
        dmarc_pass_rate: rateOf(totals.dmarc_pass, totals.messages),
        overrides: overridesOf(overridden),
        policies: policiesOf(policies),
        reporters,
        daily: dailyOf(period, daily),
      };
    },

    async sources(ownerId, domain, q) {
      const { scope, period } = await scopeOf(ownerId, domain, q, 'aggregate');
      const head = { domain, period: periodText(period), group: q.group, limit: q.limit, offset: q.offset };
      if (q.group === 'ip') {
        const { ips, total } = await ipRows(scope, { limit: q.limit, offset: q.offset });
        await withReputation(ips);
        return { ...head, sources: ips, total };
      }
      const { ips, sums } = await ipRows(scope);
      const groups = byOrganization(ips, sums);
      const page = groups.slice(q.offset, q.offset + q.limit);
      await withReputation(page.flatMap((g) => g.ips));
      return { ...head, sources: page.map(organizationOf), total: groups.length };
    },

    async failures(ownerId, domain, q) {
      const period = q.from === undefined && q.to === undefined ? null : periodOf(q, deps.now(), deps.now());
      const { rows, total } = await store.failures(
        ownerId,
        domain,
        period && { from: period.from, to: period.to + DAY_MS },
        q.limit,
        q.offset,
      );
      const failures = rows.map((r) => ({
        report: r.id,
        org_name: r.org_name,
        received_at: toIso(r.received_at),
        ...(JSON.parse(r.detail) as FailureSample),
      }));
      return { domain, failures, total, limit: q.limit, offset: q.offset };
    },

    async tls(ownerId, domain, q) {
      const { scope, period } = await scopeOf(ownerId, domain, q, 'tls');
      return { domain, period: periodText(period), ...tlsOf(await store.tlsPolicies(scope), domain) };
    },
  };
}
