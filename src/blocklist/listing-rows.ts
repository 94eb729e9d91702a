/** Stored rows as answers (listing, event), and the one way an expiry is recorded. */
import type { BlocklistWriter, EventRow, ListingRow } from './store.ts';
import type { Listing, ListingEvent, ListingType } from './types.ts';

export const EXPIRED_REASON = 'expired';
export const EXPIRY_ACTOR = 'expiry';

export function toListing(row: ListingRow): Listing {
  return {
    ip: row.ip,
    family: row.family === 6 ? 6 : 4,
    type: row.type as ListingType,
    reason: row.reason,
    returnCode: row.return_code,
    listedAt: Number(row.listed_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    updatedAt: Number(row.updated_at),
  };
}

export function toEvent(row: EventRow): ListingEvent {
  return {
    id: row.id,
    ip: row.ip,
    action: row.action === 'delisted' ? 'delisted' : 'listed',
    type: row.type as ListingType,
    reason: row.reason,
    returnCode: row.return_code,
    listedAt: Number(row.listed_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    delistedAt: row.delisted_at === null ? null : Number(row.delisted_at),
    performedAt: Number(row.performed_at),
    actor: row.actor,
  };
}

/** An expiry is recorded once, as a `delisted` event with reason `expired`, dated when it expired. */
export async function recordExpiry(w: BlocklistWriter, row: ListingRow): Promise<void> {
  const at = Number(row.expires_at);
  await w.addEvent({
    ip: row.ip,
    subnet24: row.subnet24,
    action: 'delisted',
    type: row.type,
    reason: EXPIRED_REASON,
    return_code: row.return_code,
    listed_at: row.listed_at,
    expires_at: row.expires_at,
    delisted_at: at,
    performed_at: at,
    actor: EXPIRY_ACTOR,
  });
}
