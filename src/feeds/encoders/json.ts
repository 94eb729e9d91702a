import { sharedFieldsMemo } from '../row.ts';
import { utf8Memo } from './byte-sink.ts';
import type { EncoderFactory } from './encoder.ts';

/** Strings JSON.stringify writes as they are, between quotes (it escapes controls, quote, backslash, lone surrogates). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON escapes
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

function jsonString(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

const FIRST = Buffer.from('\n{"network":"');
const NEXT = Buffer.from(',\n{"network":"');
const ASN = Buffer.from(',"asn":');

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
      `","kind":${jsonString(r.kind)},"source":${jsonString(r.source)},"first_seen":${jsonString(r.first_seen)},"last_seen":${jsonString(r.last_seen)}`,
  );
  const sharedBytes = utf8Memo();
  const brandBytes = utf8Memo((b) => `,"brand":${jsonString(b)}`);
  return {
    header: () => '[',
    row: (r, out) => {
      out.bytes(first ? FIRST : NEXT);
      first = false;
      out.range(r.buf, r.netStart, r.netEnd);
      out.bytes(sharedBytes(shared(r.shared)));
      if (hasBrand && r.brand !== undefined) out.bytes(brandBytes(r.brand));
      if (r.asn !== undefined) {
        out.bytes(ASN);
        out.int(r.asn);
      }
      out.byte(125);
    },
    footer: () => (first ? ']\n' : '\n]\n'),
  };
};
