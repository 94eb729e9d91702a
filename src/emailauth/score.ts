/**
 * Score, grade and recommendations (spec §2.7, CONTRACT §8). Pure: facts in, points and
 * deterministic advice out. Every point lost has a recommendation that names it.
 */
import type { DkimResult, DmarcResult, DnsStats, MxResult, SpfResult } from './types.ts';

export const MAX_POINTS = { mx: 10, spf: 25, dkim: 30, dmarc: 35 } as const;

export interface ScoreInput {
  domain: string;
  mx: MxResult;
  spf: SpfResult;
  dkim: DkimResult[];
  /** Selectors probed (to name them when none was found). */
  selectors: string[];
  dmarc: DmarcResult;
  dns: DnsStats;
}

export interface Score {
  score: number;
  grade: 'A' | 'B' | 'C' | 'D' | 'F';
  points: { mx: number; spf: number; dkim: number; dmarc: number };
  recommendations: string[];
}

export function gradeFor(score: number): Score['grade'] {
  if (score >= 90) return 'A';
  if (score >= 75) return 'B';
  if (score >= 55) return 'C';
  if (score >= 35) return 'D';
  return 'F';
}

const lost = (n: number) => `${n} point${n === 1 ? '' : 's'} lost`;

function scoreMx(mx: MxResult, domain: string, recs: string[]): number {
  if (mx.is_valid) {
    for (const host of mx.hosts)
      if (!host.resolves)
        recs.push(`MX host ${host.exchange} does not resolve; remove it or publish its address.`);
    return MAX_POINTS.mx;
  }
  if (mx.null_mx && mx.records.length === 0) {
    recs.push(
      `MX: ${domain} publishes a null MX (RFC 7505) and accepts no mail; if it should receive mail, publish real MX hosts (${lost(MAX_POINTS.mx)}).`,
    );
  } else if (mx.records.length === 0) {
    const dnsIssue = mx.errors.find((e) => e.startsWith('DNS '));
    recs.push(
      dnsIssue
        ? `MX could not be checked (${dnsIssue}); retry later (${lost(MAX_POINTS.mx)}).`
        : `MX: publish at least one MX record for ${domain} (${lost(MAX_POINTS.mx)}).`,
    );
  } else {
    recs.push(
      `MX: none of the MX hosts (${mx.records.join(', ')}) resolves to an address; fix their A/AAAA records (${lost(MAX_POINTS.mx)}).`,
    );
  }
  return 0;
}

function scoreSpf(spf: SpfResult, domain: string, recs: string[]): number {
  if (!spf.found && spf.record_count === 0) {
    const dnsIssue = spf.validation_errors[0];
    recs.push(
      dnsIssue
        ? `SPF could not be checked (${dnsIssue}); retry later (${lost(MAX_POINTS.spf)}).`
        : `SPF: publish one TXT record "v=spf1 <your senders> -all" at ${domain} (${lost(MAX_POINTS.spf)}).`,
    );
    return 0;
  }
  if (spf.record_count > 1) {
    recs.push(
      `SPF: merge the ${spf.record_count} v=spf1 records into one; several records are a permerror (${lost(MAX_POINTS.spf)}).`,
    );
    return 0;
  }
  if (spf.exceeds_lookups) {
    recs.push(
      `SPF: the policy needs ${spf.dns_lookup_count} DNS lookups, over the RFC 7208 limit of 10, so receivers return permerror; flatten or remove includes (${lost(MAX_POINTS.spf)}).`,
    );
    return 0;
  }
  if (!spf.is_valid) {
    recs.push(`SPF: fix the record: ${spf.validation_errors.join('; ')} (${lost(MAX_POINTS.spf)}).`);
    return 0;
  }
  switch (spf.all_qualifier) {
    case '-':
      return MAX_POINTS.spf;
    case '~':
      recs.push(
        `SPF ends in ~all (softfail); once all senders are listed, use -all (${lost(MAX_POINTS.spf - 18)}).`,
      );
      return 18;
    case '+':
      recs.push(
        `SPF ends in +all, which authorizes every host on the internet to send as ${domain}; use -all (${lost(MAX_POINTS.spf)}).`,
      );
      return 0;
    default:
      recs.push(
        `SPF ${spf.all_qualifier === '?' ? 'ends in ?all (neutral)' : 'has no all mechanism, so unlisted hosts get neutral'}; end it with -all (${lost(MAX_POINTS.spf - 8)}).`,
      );
      return 8;
  }
}

function scoreDkim(dkim: DkimResult[], selectors: string[], recs: string[]): number {
  const valid = dkim.filter((d) => d.is_valid);
  const strong = valid.find((d) => d.key_type === 'ed25519' || (d.key_bits ?? 0) >= 2048);
  for (const d of dkim) {
    if (d.found && !d.is_valid) recs.push(`DKIM selector ${d.selector}: ${d.validation_errors.join('; ')}.`);
    if (!d.found && d.validation_errors.length > 0)
      recs.push(`DKIM selector ${d.selector}: ${d.validation_errors.join('; ')}.`);
    if (d.testing)
      recs.push(`DKIM selector ${d.selector} has t=y (testing); remove the flag once signing works.`);
  }
  if (strong) return MAX_POINTS.dkim;
  const medium = valid.find((d) => d.key_type === 'rsa' && (d.key_bits ?? 0) >= 1024);
  if (medium) {
    recs.push(
      `DKIM selector ${medium.selector} uses a ${medium.key_bits}-bit RSA key; rotate to 2048-bit RSA or ed25519 (${lost(MAX_POINTS.dkim - 15)}).`,
    );
    return 15;
  }
  recs.push(
    `DKIM: no valid key found at selectors ${selectors.join(', ')}; publish a 2048-bit RSA or ed25519 key (${lost(MAX_POINTS.dkim)}).`,
  );
  return 0;
}

function scoreDmarc(dmarc: DmarcResult, domain: string, recs: string[]): number {
  let points = 0;
  if (!dmarc.found) {
    const dnsIssue = dmarc.validation_errors[0];
    recs.push(
      dnsIssue
        ? `DMARC could not be checked (${dnsIssue}); retry later (${lost(MAX_POINTS.dmarc)}).`
        : `DMARC: publish "v=DMARC1; p=reject; rua=mailto:..." at _dmarc.${domain} (${lost(MAX_POINTS.dmarc)}).`,
    );
    return 0;
  }
  if (!dmarc.is_valid) {
    recs.push(
      `DMARC: fix the record at _dmarc.${dmarc.record_domain}: ${dmarc.validation_errors.join('; ')} (${lost(MAX_POINTS.dmarc)}).`,
    );
    return 0;
  }
  const pct = dmarc.percentage;
  const where = dmarc.inherited ? `sp= of ${dmarc.record_domain}` : 'p=';
  switch (dmarc.effective_policy) {
    case 'reject':
      points = pct >= 100 ? 35 : 25;
      if (pct < 100)
        recs.push(
          `DMARC applies reject to only ${pct} % of failing mail; raise pct to 100 (${lost(35 - points)}).`,
        );
      break;
    case 'quarantine':
      points = pct >= 100 ? 25 : 18;
      recs.push(
        pct >= 100
          ? `DMARC ${where}quarantine: move to reject (${lost(35 - points)}).`
          : `DMARC ${where}quarantine applies to only ${pct} % of failing mail; raise pct to 100, then move to reject (${lost(35 - points)}).`,
      );
      break;
    default:
      points = 10;
      recs.push(`DMARC ${where}none only monitors; move to quarantine, then reject (${lost(35 - points)}).`);
  }
  if (dmarc.no_visibility)
    recs.push(
      'DMARC has no rua= address: add rua=mailto:... to receive aggregate reports (no points, but no visibility).',
    );
  if (dmarc.inherited)
    recs.push(`DMARC record inherited from the organizational domain ${dmarc.record_domain}.`);
  for (const w of dmarc.warnings) recs.push(`DMARC: ${w}.`);
  return points;
}

export function scoreDomain(input: ScoreInput): Score {
  const recs: string[] = [];
  if (input.dns.deadline_exceeded) {
    recs.push(
      `DNS: the ${input.dns.deadline_ms / 1000} s deadline passed before every answer arrived; results may be incomplete, retry later.`,
    );
  }
  if (input.dns.budget_exhausted) {
    recs.push(
      `DNS: the budget of ${input.dns.max_lookups} lookups was spent; some records were not checked.`,
    );
  }
  const points = {
    mx: scoreMx(input.mx, input.domain, recs),
    spf: scoreSpf(input.spf, input.domain, recs),
    dkim: scoreDkim(input.dkim, input.selectors, recs),
    dmarc: scoreDmarc(input.dmarc, input.domain, recs),
  };
  for (const w of input.spf.warnings) recs.push(`SPF: ${w}.`);
  const score = Math.max(0, Math.min(100, points.mx + points.spf + points.dkim + points.dmarc));
  return { score, grade: gradeFor(score), points, recommendations: recs };
}
