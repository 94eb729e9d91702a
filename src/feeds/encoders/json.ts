import { sharedFieldsMemo } from '../row.ts';
import type { EncoderFactory } from './encoder.ts';

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
  const shared = sharedFieldsMemo(
    (r) =>
      `"kind":${jsonString(r.kind)},"source":${jsonString(r.source)},"first_seen":${jsonString(r.first_seen)},"last_seen":${jsonString(r.last_seen)}`,
  );
  return {
    header: () => '[',
    row: ({ row }) => {
      const lead = first ? '\n' : ',\n';
      first = false;
      const b = hasBrand && row.brand !== undefined ? `,"brand":${jsonString(row.brand)}` : '';
      const asn = row.asn === undefined ? '' : `,"asn":${row.asn}`;
      return `${lead}{"network":"${row.network}",${shared(row)}${b}${asn}}`;
    },
    footer: () => (first ? ']\n' : '\n]\n'),
  };
};
