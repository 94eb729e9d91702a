/**
 * What a cut interval answers, as rows side by side in one flat array (ROW slots each, appended
 * on first use) rather than as an object per interval spread over the heap: the rows in use stay
 * dense, so a lookup's read of its row is more often a cache hit. Shared by the IPv4 and IPv6
 * paths of lookup.ts; the answer object is the only allocation of a lookup.
 */
import type { Profile } from './profile.ts';
import type { Contribution } from './threat.ts';
import type { IpAnswer, Threat } from './types.ts';

/** A row's slots: prefix, asn, asn_name, country, rir, connection_type, netrep, threat, contributions. */
const ROW = 9;

/** Marks where a row number is kept: not yet built; no record there (no answer). */
export const ROW_UNBUILT = -1;
export const ROW_NONE = -3;

/** The threat of an answer given its static threat and contributions (blocklist and trap signals). */
export type ThreatOf = (ip: string, threat: Threat, contributions: Contribution[]) => Threat;

export interface AnswerRows {
  /** Appends the row of a record's profile and an interval's prefix; its number. */
  add(p: Profile, prefix: string): number;
  /** The answer for `address` from row r. */
  answer(address: string, r: number): IpAnswer;
}

/** `threatOf` null: no signals, every answer has its row's static threat. */
export function answerRows(threatOf: ThreatOf | null): AnswerRows {
  const rows: unknown[] = [];
  return {
    add(p, prefix) {
      const r = rows.length / ROW;
      rows.push(
        prefix,
        p.asn,
        p.asnName,
        p.country,
        p.rir,
        p.connectionType,
        p.netrep,
        p.threat,
        p.contributions,
      );
      return r;
    },
    answer(address, r) {
      const o = r * ROW;
      return {
        ip: address,
        prefix: rows[o] as string,
        asn: rows[o + 1] as number | null,
        asn_name: rows[o + 2] as string | null,
        country: rows[o + 3] as string | null,
        rir: rows[o + 4] as string | null,
        connection_type: rows[o + 5] as IpAnswer['connection_type'],
        bogon: false,
        netrep: rows[o + 6] as IpAnswer['netrep'],
        threat:
          threatOf === null
            ? (rows[o + 7] as Threat)
            : threatOf(address, rows[o + 7] as Threat, rows[o + 8] as Contribution[]),
      };
    },
  };
}
