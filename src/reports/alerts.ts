/**
 * Webhook alerts of DMARC aggregate reports (issue #38 item 3), for the report owner's hooks:
 * `email_domain` events when a domain's DMARC pass rate over the trailing window crosses below the
 * threshold (and back), or a source IP appears that none of the owner's earlier aggregate reports
 * of the domain named. Worked out after a report's own transaction, from the store alone, so a
 * failed emit loses nothing: the domain's row in `email_report_alerts` (0720) moves only after
 * the events are stored, the next report of the domain does the same work again, and each event's
 * origin keeps a repeat from being sent twice.
 */
import { type Clock, DAY_MS, toIso } from '../core/clock.ts';
import type { Store } from '../store/index.ts';
import type { NewEvent } from '../webhooks/index.ts';
import { type AlertStore, createAlertStore, type NewSource, type ReportFacts } from './store-alerts.ts';

/** An alert is an event of the webhook outbox. */
type AlertEvent = NewEvent;

export interface AlertSettings {
  /** NETREP_REPORTS_ALERT_PASS_RATE; null: `off`. */
  passRate: number | null;
  /** NETREP_REPORTS_ALERT_WINDOW_DAYS. */
  windowDays: number;
  /** NETREP_REPORTS_ALERT_MAX_SOURCES. */
  maxSources: number;
}

export interface AlertDeps {
  store: Store;
  clock: Clock;
  settings: AlertSettings;
  /** Stores events with their outbox rows (webhooks.emit). */
  emit(events: AlertEvent[]): Promise<unknown>;
  /** The serving dataset's network of an address; null when none. */
  networkOf?(ip: string): { asn: number | null; asn_name: string | null; country: string | null } | null;
  logger?: { warn(obj: object, msg?: string): void };
}

export interface ReportAlerts {
  /** Works out and emits the domain's alerts; never throws (a failure is logged and counted). */
  check(ownerId: number, domain: string): Promise<void>;
  counts(): { checks: number; events: number; failures: number };
}

const ENTITY_TYPE = 'email_domain';
const SOURCE_KEY = 'dmarc_aggregate';

/** NETREP_REPORTS_ALERT_PASS_RATE: `off` or a number from 0 to 1. */
export function alertPassRate(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (t === 'off') return null;
  const rate = Number(t);
  if (!/^(\d+\.?\d*|\.\d+)$/.test(t) || rate > 1)
    throw new Error(`NETREP_REPORTS_ALERT_PASS_RATE: "${text}" is neither off nor a number from 0 to 1`);
  return rate;
}

const reportText = (r: ReportFacts | undefined) =>
  r
    ? {
        id: r.id,
        org_name: r.org_name,
        report_id: r.report_id,
        begin: r.begin_at === null ? null : toIso(r.begin_at),
        end: r.end_at === null ? null : toIso(r.end_at),
      }
    : null;

/** One event per new source up to the cap, then one summary event naming how many more. */
async function sourceEvents(
  deps: AlertDeps,
  st: AlertStore,
  key: { ownerId: number; domain: string; checkedId: number; now: number },
  sources: NewSource[],
): Promise<AlertEvent[]> {
  const { ownerId, domain, checkedId, now } = key;
  const max = Math.max(0, deps.settings.maxSources);
  const each = sources.slice(0, max);
  const facts = await st.reportFacts([...new Set(each.map((s) => s.first_report))]);
  const events: AlertEvent[] = each.map((s) => {
    const network = deps.networkOf?.(s.source_ip) ?? null;
    return {
      ownerId,
      origin: `${ENTITY_TYPE}:${ownerId}:${domain}:source:${s.source_ip}`,
      entityType: ENTITY_TYPE,
      sourceKey: SOURCE_KEY,
      entity: domain,
      state: {
        alert: 'new_sending_source',
        domain,
        source_ip: s.source_ip,
        asn: network?.asn ?? null,
        asn_name: network?.asn_name ?? null,
        country: network?.country ?? null,
        messages: s.messages,
        first_report: reportText(facts.get(s.first_report)),
      },
      occurredAt: now,
    };
  });
  const rest = sources.slice(max);
  if (rest.length > 0)
    events.push({
      ownerId,
      origin: `${ENTITY_TYPE}:${ownerId}:${domain}:sources:${checkedId}`,
      entityType: ENTITY_TYPE,
      sourceKey: SOURCE_KEY,
      entity: domain,
      state: {
        alert: 'new_sending_sources',
        domain,
        sources: rest.length,
        messages: rest.reduce((sum, s) => sum + s.messages, 0),
        listed: each.length,
      },
      occurredAt: now,
    });
  return events;
}

/** The pass-rate event of a crossing (below or back), and whether the rate is below now. */
async function passRateEvent(
  deps: AlertDeps,
  st: AlertStore,
  key: { ownerId: number; domain: string; checkedId: number; latestId: number; endAt: number; now: number },
  wasBelow: boolean,
): Promise<{ below: boolean; event: AlertEvent | null }> {
  const threshold = deps.settings.passRate;
  if (threshold === null) return { below: wasBelow, event: null };
  const { ownerId, domain, checkedId, latestId, endAt, now } = key;
  const from = endAt - Math.max(1, deps.settings.windowDays) * DAY_MS;
  const sums = await st.passes(ownerId, domain, from, latestId);
  if (sums.messages === 0) return { below: wasBelow, event: null };
  const rate = sums.pass / sums.messages;
  const below = rate < threshold;
  if (below === wasBelow) return { below, event: null };
  return {
    below,
    event: {
      ownerId,
      origin: `${ENTITY_TYPE}:${ownerId}:${domain}:pass_rate:${checkedId}`,
      entityType: ENTITY_TYPE,
      sourceKey: SOURCE_KEY,
      entity: domain,
      state: {
        alert: below ? 'dmarc_pass_rate_below' : 'dmarc_pass_rate_recovered',
        domain,
        period: { from: toIso(from), to: toIso(endAt) },
        pass_rate: Math.round(rate * 10_000) / 10_000,
        threshold,
        messages: sums.messages,
        dmarc_pass: sums.pass,
        reports: sums.reports,
      },
      occurredAt: now,
    },
  };
}

async function checkDomain(deps: AlertDeps, st: AlertStore, ownerId: number, domain: string) {
  const [state, latest] = await Promise.all([st.state(ownerId, domain), st.latest(ownerId, domain)]);
  if (latest === null || (state !== null && latest.id <= state.checkedId)) return 0;
  const now = deps.clock();
  // Origins name the state the events were worked out from: the same work again (a retry, or a
  // concurrent report of the domain that read the same state) stores nothing twice.
  const checkedId = state?.checkedId ?? 0;
  const key = { ownerId, domain, checkedId, latestId: latest.id, endAt: latest.endAt, now };
  // No row yet: the domain's reports so far are its baseline, every source in them is "new".
  const sources = state ? await st.newSources(ownerId, domain, state.checkedId, latest.id) : [];
  const events = await sourceEvents(deps, st, key, sources);
  const rate = await passRateEvent(deps, st, key, state?.below ?? false);
  if (rate.event) events.push(rate.event);
  if (events.length > 0) await deps.emit(events);
  await st.save({
    owner_id: ownerId,
    domain,
    checked_id: latest.id,
    below: rate.below ? 1 : 0,
    updated_at: now,
  });
  return events.length;
}

export function createReportAlerts(deps: AlertDeps): ReportAlerts {
  const st = createAlertStore(deps.store);
  const counts = { checks: 0, events: 0, failures: 0 };
  return {
    async check(ownerId, domain) {
      counts.checks++;
      try {
        const emitted = await checkDomain(deps, st, ownerId, domain);
        counts.events += emitted;
      } catch (err) {
        counts.failures++;
        deps.logger?.warn(
          { err, owner: ownerId, domain },
          'report alerts: not emitted (tried again with the domain’s next report)',
        );
      }
    },
    counts: () => ({ ...counts }),
  };
}
