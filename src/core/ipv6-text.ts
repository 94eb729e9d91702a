/**
 * IPv6 text in RFC 5952 form (§4): hex in lower case without leading zeros, the longest run of
 * two or more zero groups written `::` (the first one on a tie). One zero-run search serves both
 * the formatter and the check whether text read by core/ip.ts already is in this form.
 *
 * On the lookup path (readIp): module state and one scratch buffer, so nothing is allocated
 * but the returned string.
 */

/** Lower-case hex digits as character codes, and the scratch buffer the text is written into. */
const HEX_CODES = Buffer.from('0123456789abcdef', 'latin1');
const V6_TEXT = Buffer.alloc(48);

/** Where the run RFC 5952 compresses starts (-1: none) and its length, set by findZeroRun. */
let runAt = -1;
let runLen = 1;

/**
 * The longest run of two or more zero groups in `g`, the first one on a tie, into runAt and
 * runLen (module state, so the hot path allocates nothing).
 */
function findZeroRun(g: readonly number[]): void {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i >= 2 && j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  runAt = best;
  runLen = bestLen;
}

/** Writes the text of `g` into V6_TEXT, compressing the run findZeroRun found; returns its length. */
function writeV6(g: readonly number[]): number {
  const best = runAt;
  const bestLen = runLen;
  const out = V6_TEXT;
  let n = 0;
  let sep = false;
  for (let k = 0; k < 8; k++) {
    if (k === best) {
      out[n++] = 58;
      out[n++] = 58;
      k += bestLen - 1;
      sep = false;
      continue;
    }
    if (sep) out[n++] = 58;
    const v = g[k] as number;
    if (v >= 0x1000) out[n++] = HEX_CODES[v >> 12] as number;
    if (v >= 0x100) out[n++] = HEX_CODES[(v >> 8) & 15] as number;
    if (v >= 0x10) out[n++] = HEX_CODES[(v >> 4) & 15] as number;
    out[n++] = HEX_CODES[v & 15] as number;
    sep = true;
  }
  return n;
}

/** The text written by writeV6, as one flat string. */
function textOfRun(g: readonly number[]): string {
  // Written as bytes and read out once: one flat string (concatenation makes a rope of up to
  // 15 pieces, which every later use as a map key or parse input must flatten).
  return V6_TEXT.toString('latin1', 0, writeV6(g));
}

/** RFC 5952 text of eight 16-bit groups. */
export function formatV6(g: readonly number[]): string {
  findZeroRun(g);
  return textOfRun(g);
}

/**
 * The RFC 5952 text of groups `g` read from `text`: `text` itself when it already is written so
 * (`plain`: lower-case digits without leading zeros; and its `::`, at group `gapAt` (-1: none)
 * standing for `gapLen` groups, is the run RFC 5952 compresses), else a new string.
 */
export function rfc5952Text(
  text: string,
  g: readonly number[],
  plain: boolean,
  gapAt: number,
  gapLen: number,
): string {
  findZeroRun(g);
  // No `::` and no run to compress, or `::` standing for exactly the run RFC 5952 compresses.
  if (plain && (runAt < 0 ? gapAt < 0 : gapAt === runAt && gapLen === runLen)) return text;
  return textOfRun(g);
}
