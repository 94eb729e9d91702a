/**
 * The `name=value; name=value` tag-list syntax shared by DKIM key records (RFC 6376 §3.2) and
 * DMARC records (RFC 7489 §6.4). Calls `onTag` for each well-formed, first-seen tag in record
 * order (with its position), and `onError` for malformed parts and duplicates (a duplicate tag
 * makes the record invalid in both RFCs), so callers keep their messages in record order.
 */
export interface TagListOptions {
  /** DMARC tag names are case-insensitive; DKIM's are not. */
  lowerCaseNames?: boolean;
  /** Names outside this pattern are reported as malformed. */
  namePattern?: RegExp;
}

export function forEachTag(
  raw: string,
  options: TagListOptions,
  onTag: (name: string, value: string, index: number) => void,
  onError: (message: string) => void,
): void {
  const seen = new Set<string>();
  const parts = raw
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  parts.forEach((part, index) => {
    const eq = part.indexOf('=');
    if (eq <= 0) {
      onError(`malformed tag "${part}" (expected name=value)`);
      return;
    }
    const written = part.slice(0, eq).trim();
    const name = options.lowerCaseNames ? written.toLowerCase() : written;
    if (options.namePattern && !options.namePattern.test(name)) {
      onError(`malformed tag name "${written}"`);
      return;
    }
    if (seen.has(name)) {
      onError(`duplicate tag ${name}=`);
      return;
    }
    seen.add(name);
    onTag(name, part.slice(eq + 1).trim(), index);
  });
}
