import { type EncoderFactory, lastValueMemo } from './encoder.ts';

/** Strings JSON.stringify writes as they are, between quotes (it escapes controls, quote, backslash, lone surrogates). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON escapes
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

function jsonString(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

/**
 * A JSON array of row objects, one per line, keys in a fixed order (network, kind, source,
 * first_seen, last_seen, brand on feeds that carry it, asn where known): the text
 * JSON.stringify gives for such an object, written without building it.
 */
export const createJsonEncoder: EncoderFactory = (ctx) => {
  let first = true;
  const hasBrand = ctx.feed.has_brand;
  const kind = lastValueMemo(jsonString);
  const source = lastValueMemo(jsonString);
  const firstSeen = lastValueMemo(jsonString);
  const lastSeen = lastValueMemo(jsonString);
  const brand = lastValueMemo(jsonString);
  return {
    header: () => '[',
    row: ({ row }) => {
      const lead = first ? '\n' : ',\n';
      first = false;
      const b = hasBrand && row.brand !== undefined ? `,"brand":${brand(row.brand)}` : '';
      const asn = row.asn === undefined ? '' : `,"asn":${row.asn}`;
      return `${lead}{"network":"${row.network}","kind":${kind(row.kind)},"source":${source(row.source)},"first_seen":${firstSeen(row.first_seen)},"last_seen":${lastSeen(row.last_seen)}${b}${asn}}`;
    },
    footer: () => (first ? ']\n' : '\n]\n'),
  };
};
