/**
 * The probes of an audit job (runner.ts): which are planned and still to do, which zones fail
 * their RFC 5782 test points, and one probe run into its observation.
 */
import type { Clock } from '../core/clock.ts';
import type { DnsClient } from '../core/dns/index.ts';
import { checkFcrdns, type FcrdnsRecord } from '../reputation/index.ts';
import { type DnsblProbe, probeDnsbl, zoneTestPointFailure } from './dnsbl-probe.ts';
import type { NewObservation, TargetRow } from './store.ts';

/** How long an observation stands for (its expires_at): listings change within hours. */
export const OBSERVATION_TTL_MS = 3_600_000;

export interface Probe {
  target: TargetRow;
  kind: 'dnsbl' | 'fcrdns';
  zone: string;
}

const probeKey = (targetId: number, kind: string, source: string) => `${targetId}|${kind}|${source}`;

/** Every probe of a job (each zone, then FCrDNS, per target) and those whose observation is not stored yet. */
export function plannedProbes(
  targets: readonly TargetRow[],
  zones: readonly string[],
  stored: readonly { target_id: number; observation_kind: string; source_key: string }[],
): { all: Probe[]; todo: Probe[] } {
  const done = new Set(stored.map((o) => probeKey(o.target_id, o.observation_kind, o.source_key)));
  const all: Probe[] = [];
  for (const target of targets) {
    for (const zone of zones) all.push({ target, kind: 'dnsbl', zone });
    all.push({ target, kind: 'fcrdns', zone: 'fcrdns' });
  }
  return { all, todo: all.filter((p) => !done.has(probeKey(p.target.id, p.kind, p.zone))) };
}

/** The zones whose RFC 5782 test points fail, with the reason (their probes are not sent). */
export async function untrustedZones(dns: DnsClient, zones: readonly string[]): Promise<Map<string, string>> {
  const untrusted = new Map<string, string>();
  const checks = await Promise.all(zones.map(async (z) => [z, await zoneTestPointFailure(dns, z)] as const));
  for (const [z, failure] of checks) if (failure) untrusted.set(z, failure);
  return untrusted;
}

/** An FCrDNS observation's outcome and raw response; null (resolver trouble) is `unknown`. */
function fcrdnsFacts(record: FcrdnsRecord | null): Pick<NewObservation, 'outcome' | 'rawProviderResponse'> {
  if (record === null) {
    return {
      outcome: 'unknown',
      rawProviderResponse: { reason: 'resolver trouble left the answer open; nothing stored' },
    };
  }
  return {
    outcome: record.forwardMatch ? 'pass' : 'fail',
    rawProviderResponse: {
      ptr_hostname: record.ptrHostname,
      forward_match: record.forwardMatch,
      forward_ips: record.forwardIps,
    },
  };
}

/** What a probe needs: the resolvers, the clock, and where an FCrDNS result is stored for reputation. */
export interface Observer {
  dns: DnsClient;
  clock: Clock;
  recordFcrdns(record: FcrdnsRecord): Promise<void>;
}

/** Runs one probe (a zone not trusted is not asked: an error naming why) and returns its observation. */
export async function observeProbe(
  o: Observer,
  p: Probe,
  jobId: number,
  untrusted: Map<string, string>,
): Promise<NewObservation> {
  const { dns, clock } = o;
  const base = { jobId, targetId: p.target.id, address: p.target.target, kind: p.kind };
  if (p.kind === 'fcrdns') {
    const record = await checkFcrdns(p.target.target, dns, clock(), null);
    if (record) await o.recordFcrdns(record);
    const now = clock();
    const { outcome, rawProviderResponse } = fcrdnsFacts(record);
    return {
      ...base,
      sourceKey: 'fcrdns',
      outcome,
      rawCodes: [],
      rawProviderResponse,
      observedAt: now,
      expiresAt: now + OBSERVATION_TTL_MS,
    };
  }
  const distrust = untrusted.get(p.zone);
  const probe: DnsblProbe = distrust
    ? { outcome: 'error', rawCodes: [], raw: { query: '', rcode: 'NOT_SENT', txt: [], reason: distrust } }
    : await probeDnsbl(dns, p.zone, p.target.target);
  const now = clock();
  return {
    ...base,
    sourceKey: p.zone,
    outcome: probe.outcome,
    rawCodes: probe.rawCodes,
    rawProviderResponse: probe.raw,
    observedAt: now,
    expiresAt: now + OBSERVATION_TTL_MS,
  };
}
