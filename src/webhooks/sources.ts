/**
 * Where events come from (spec §6, CONTRACT §11):
 * - `saved_ip` / `blocklist`: a saved address listed, delisted or expired (blocklist events);
 * - `saved_ip` / `dataset`: a saved address whose threat level or flags differ in a newly
 *   loaded dataset version (each address's last state is kept and diffed once per version);
 * - `email_pool`: a pool graduation, to the owner of the key that classified.
 * An address saved while nobody watched it gets its baseline at once (`saveIp`), so its first
 * change after saving is an event too.
 * Each pass moves its cursor in the transaction that stores its events; origins make a repeated
 * pass (a crash, a second worker) store nothing twice.
 */
import { type Clock, toIso } from '../core/clock.ts';
import type { ChangeLog } from './store.ts';
import type { SavedIpLookup } from './types.ts';
import type { NewEvent, Webhooks } from './webhooks.ts';

const PAGE = 500;
/**
 * Blocklist events are re-read this far behind the cursor: on PostgreSQL an id can commit after
 * a larger one, and the origin keeps a re-read from storing anything twice.
 */
const REREAD = 100;
const BLOCKLIST_CURSOR = 'blocklist_events';
const GRADUATION_CURSOR = 'graduation_events';
const DATASET_CURSOR = 'dataset_version';

export interface EventSourcesOptions {
  webhooks: Pick<Webhooks, 'emit' | 'store'>;
  changeLog: ChangeLog;
  /** The serving dataset's answer for an address (null before a dataset is loaded). */
  lookup: (ip: string) => SavedIpLookup | null;
  datasetVersion: () => number | null;
  clock: Clock;
}

export interface GraduationInput {
  id: number;
  ownerId: number;
  ip: string;
  state: unknown;
  occurredAt: number;
}

function graduationEvent(g: GraduationInput): NewEvent {
  return {
    ownerId: g.ownerId,
    origin: `email_pool:${g.id}`,
    entityType: 'email_pool',
    sourceKey: 'email_pool',
    entity: g.ip,
    state: g.state as Record<string, unknown>,
    occurredAt: g.occurredAt,
  };
}

/** The states of a page of saved addresses in a dataset version, and the events of those that changed. */
function datasetChanges(
  ips: readonly string[],
  previous: Map<string, { state: string }>,
  owners: Map<string, number[]>,
  lookup: EventSourcesOptions['lookup'],
  version: number,
  now: number,
): { events: NewEvent[]; states: { ip: string; state: string }[] } {
  const events: NewEvent[] = [];
  const states: { ip: string; state: string }[] = [];
  for (const ip of ips) {
    const current = lookup(ip);
    if (current === null) continue;
    const text = JSON.stringify(current);
    const before = previous.get(ip);
    if (before?.state === text) continue;
    states.push({ ip, state: text });
    // An address seen for the first time gets its baseline, not an event.
    if (!before) continue;
    for (const ownerId of owners.get(ip) ?? [])
      events.push({
        ownerId,
        origin: `dataset:${version}:${ip}:${ownerId}`,
        entityType: 'saved_ip',
        sourceKey: 'dataset',
        entity: ip,
        state: { dataset_version: version, previous: JSON.parse(before.state), current },
        occurredAt: now,
      });
  }
  return { events, states };
}

export function createEventSources(options: EventSourcesOptions) {
  const { webhooks, changeLog } = options;
  const { store } = webhooks;

  /** Where a fresh install starts following a log: its end (history is not replayed). */
  async function cursorOf(name: string, end: () => Promise<number>): Promise<number> {
    const at = await store.cursor(name);
    if (at !== null) return at;
    const position = await end();
    await webhooks.emit([], { also: (w) => w.setCursor(name, position) });
    return position;
  }

  async function collectBlocklist(): Promise<void> {
    let cursor = await cursorOf(BLOCKLIST_CURSOR, () => changeLog.lastBlocklistId());
    for (let from = Math.max(0, cursor - REREAD); ; ) {
      const changes = await changeLog.blocklistAfter(from, PAGE);
      if (changes.length === 0) return;
      const owners = await store.ownersOf([...new Set(changes.map((c) => c.ip))]);
      const events = changes.flatMap((c) =>
        (owners.get(c.ip) ?? []).map(
          (ownerId): NewEvent => ({
            ownerId,
            origin: `blocklist:${c.id}:${ownerId}`,
            entityType: 'saved_ip',
            sourceKey: 'blocklist',
            entity: c.ip,
            state: {
              listed: c.action === 'listed',
              action: c.action,
              type: c.type,
              reason: c.reason,
              return_code: c.returnCode,
              expires_at: c.expiresAt === null ? null : toIso(c.expiresAt),
            },
            occurredAt: c.performedAt,
          }),
        ),
      );
      const last = (changes.at(-1) as { id: number }).id;
      const known = await store.knownOrigins(events.map((e) => e.origin));
      const fresh = events.filter((e) => !known.has(e.origin));
      // The re-read window alone, with nothing new in it, writes nothing.
      if (fresh.length > 0 || last > cursor) {
        cursor = Math.max(cursor, last);
        const position = cursor;
        await webhooks.emit(fresh, { also: (w) => w.setCursor(BLOCKLIST_CURSOR, position) });
      }
      from = last;
      if (changes.length < PAGE) return;
    }
  }

  async function collectGraduations(): Promise<void> {
    let from = await cursorOf(GRADUATION_CURSOR, () => changeLog.lastGraduationId());
    for (;;) {
      const changes = await changeLog.graduationsAfter(from, PAGE);
      if (changes.length === 0) return;
      const events = changes.map((g) => graduationEvent({ ...g, state: JSON.parse(g.state) as unknown }));
      from = (changes.at(-1) as { id: number }).id;
      const position = from;
      await webhooks.emit(events, { also: (w) => w.setCursor(GRADUATION_CURSOR, position) });
      if (changes.length < PAGE) return;
    }
  }

  async function collectDataset(): Promise<void> {
    const version = options.datasetVersion();
    if (version === null || (await store.cursor(DATASET_CURSOR)) === version) return;
    for (let after: string | null = null; ; ) {
      const ips = await store.savedIpPage(after, PAGE);
      if (ips.length === 0) break;
      after = ips.at(-1) as string;
      const [previous, owners] = await Promise.all([store.savedIpStates(ips), store.ownersOf(ips)]);
      const now = options.clock();
      const { events, states } = datasetChanges(ips, previous, owners, options.lookup, version, now);
      await webhooks.emit(events, {
        also: async (w) => {
          for (const s of states)
            await w.putSavedIpState({ ip: s.ip, state: s.state, dataset_version: version, updated_at: now });
        },
      });
    }
    await webhooks.emit([], { also: (w) => w.setCursor(DATASET_CURSOR, version) });
  }

  return {
    /** One pass over every source. */
    async collect(): Promise<void> {
      await collectBlocklist();
      await collectGraduations();
      await collectDataset();
    },
    /** Graduations as they happen (the collector would find them too; origins keep one). */
    async emitGraduations(events: readonly GraduationInput[]): Promise<void> {
      await webhooks.emit(events.map(graduationEvent));
    },
  };
}
