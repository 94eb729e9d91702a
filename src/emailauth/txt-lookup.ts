/** One TXT name's records of one kind (those `isRecord` accepts), or absent, or why it could not be read. */
import type { DnsClient } from '../core/dns/index.ts';
import { isAbsent, isDnsError } from '../core/dns/index.ts';

export type TxtLookup =
  | { kind: 'records'; records: string[] }
  | { kind: 'absent' }
  | { kind: 'error'; message: string };

export async function lookupTxt(
  dns: DnsClient,
  name: string,
  isRecord: (text: string) => boolean,
): Promise<TxtLookup> {
  try {
    const records = (await dns.txt(name)).map((r) => r.join('')).filter(isRecord);
    return records.length === 0 ? { kind: 'absent' } : { kind: 'records', records };
  } catch (err) {
    if (isAbsent(err)) return { kind: 'absent' };
    return {
      kind: 'error',
      message: `DNS ${isDnsError(err) ? err.code : 'error'} while looking up ${name} TXT`,
    };
  }
}

/** Splits `a, b ,c` into its non-empty trimmed parts. */
export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}
