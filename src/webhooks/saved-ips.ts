/**
 * An owner's saved IPs (spec §6): labelled, capped per tier, and given the serving answer as a
 * baseline when nobody watched the address yet, so its first change is an event.
 */
import type { TierName } from '../accounts/index.ts';
import { type Clock, toIso } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { parseIp } from '../core/ip.ts';
import type { WebhookStore } from './store.ts';
import { MAX_LABEL_LENGTH, SAVED_IP_CAPS, type SavedIpAnswer, type SavedIpLookup } from './types.ts';

function savedIpAnswer(r: { ip: string; label: string | null; created_at: number }): SavedIpAnswer {
  return { ip: r.ip, label: r.label, created_at: toIso(Number(r.created_at)) };
}

function validLabel(label: unknown): string | null {
  if (label === undefined || label === null) return null;
  if (typeof label !== 'string') throw new AppError('INVALID_BODY', 'label must be a string');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
  if (/[\u0000-\u001f\u007f]/.test(label))
    throw new AppError('INVALID_BODY', 'label contains control characters');
  if (label.length > MAX_LABEL_LENGTH)
    throw new AppError('INVALID_BODY', `label is longer than ${MAX_LABEL_LENGTH} characters`);
  return label.trim() === '' ? null : label.trim();
}

export interface SavedIps {
  saveIp(ownerId: number, tier: TierName, rawIp: unknown, rawLabel: unknown): Promise<SavedIpAnswer>;
  savedIps(
    ownerId: number,
    limit: number,
    offset: number,
  ): Promise<{ items: SavedIpAnswer[]; total: number }>;
  /** The normalized address removed, or null when the owner had not saved it. */
  removeSavedIp(ownerId: number, rawIp: string): Promise<string | null>;
}

export function createSavedIps(options: {
  store: WebhookStore;
  clock: Clock;
  lookup?: ((ip: string) => SavedIpLookup | null) | undefined;
  datasetVersion?: (() => number | null) | undefined;
}): SavedIps {
  const { store, clock } = options;

  /**
   * Records the serving answer as the baseline of an address nobody watches yet (replacing any
   * state left from an earlier watch). A watched address keeps the state the event sources keep,
   * which may still be a previous version's pending its diff.
   */
  async function recordBaseline(ip: string): Promise<void> {
    const version = options.datasetVersion?.() ?? null;
    const answer = version === null ? null : (options.lookup?.(ip) ?? null);
    if (version === null || answer === null) return;
    if ((await store.ownersOf([ip])).has(ip)) return;
    const row = { ip, state: JSON.stringify(answer), dataset_version: version, updated_at: clock() };
    await store.transaction((w) => w.putSavedIpState(row));
  }

  return {
    async saveIp(ownerId, tier, rawIp, rawLabel) {
      const ip = parseIp(rawIp)?.address;
      if (ip === undefined)
        throw new AppError('INVALID_IP', `invalid IP address: ${String(rawIp).slice(0, 64)}`);
      const label = validLabel(rawLabel);
      const existing = await store.getSavedIp(ownerId, ip);
      if (!existing) {
        const cap = SAVED_IP_CAPS[tier];
        if ((await store.countSavedIps(ownerId)) >= cap)
          throw new AppError(
            'INVALID_BODY',
            `saved IP limit reached: the ${tier} tier keeps at most ${cap} saved IPs; remove one first`,
          );
      }
      // Before the saved row: a crash in between leaves a state nobody watches, replaced next time.
      if (!existing) await recordBaseline(ip);
      const row = {
        owner_id: ownerId,
        ip,
        label,
        created_at: existing ? Number(existing.created_at) : clock(),
      };
      await store.putSavedIp(row);
      return savedIpAnswer(row);
    },

    async savedIps(ownerId, limit, offset) {
      const [rows, total] = await Promise.all([
        store.listSavedIps(ownerId, limit, offset),
        store.countSavedIps(ownerId),
      ]);
      return { items: rows.map(savedIpAnswer), total };
    },

    async removeSavedIp(ownerId, rawIp) {
      const ip = parseIp(rawIp)?.address;
      if (ip === undefined) throw new AppError('INVALID_IP', `invalid IP address: ${rawIp.slice(0, 64)}`);
      return (await store.deleteSavedIp(ownerId, ip)) ? ip : null;
    },
  };
}
