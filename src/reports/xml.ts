/**
 * XML for aggregate reports, read with fast-xml-parser: a document type declaration is refused
 * outright (RFC 7489's schema needs none, and entity expansion is how "billion laughs" works),
 * the document is checked well-formed first, namespaces (RFC 9990's
 * urn:ietf:params:xml:ns:dmarc-2.0, a prefix) are dropped so both forms read alike.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { refuse } from './fields.ts';

/** Elements that may repeat: always read as lists, so one and many look the same. */
const LISTS = new Set([
  'feedback.record',
  'feedback.record.row.policy_evaluated.reason',
  'feedback.record.auth_results.dkim',
  'feedback.record.auth_results.spf',
]);

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * XML's five predefined entities and character references, in one pass (so `&amp;#65;` stays
 * `&#65;`): the parser's own entity handling is off, since with it on it would also expand a
 * document type's entities, and the document type is refused before anything is parsed. A
 * reference to a code point XML does not allow is kept as written.
 */
export function decodeReferences(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    /&(?:#x([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(amp|lt|gt|quot|apos));/g,
    (ref, hex, dec, name) => {
      if (name) return PREDEFINED[name] as string;
      const cp = hex ? Number.parseInt(hex, 16) : Number(dec);
      const allowed =
        cp === 0x9 ||
        cp === 0xa ||
        cp === 0xd ||
        (cp >= 0x20 && cp <= 0xd7ff) ||
        (cp >= 0xe000 && cp <= 0x10ffff);
      return allowed && (cp < 0xfffe || cp > 0xffff) ? String.fromCodePoint(cp) : ref;
    },
  );
}

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  processEntities: false,
  tagValueProcessor: (_name, value) => decodeReferences(value),
  parseTagValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (_name, jpath) => LISTS.has(String(jpath)),
});

/** Text of the document: UTF-8 (invalid sequences become U+FFFD, as other readers do) or Latin-1 when declared. */
export function decodeXml(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
  const latin = /encoding\s*=\s*["'](iso-8859-1|latin-?1|windows-1252)["']/i.test(head);
  return new TextDecoder(latin ? 'windows-1252' : 'utf-8', { fatal: false, ignoreBOM: false }).decode(bytes);
}

export function parseXml(text: string): Record<string, unknown> {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) refuse('XML: a document type declaration is not accepted');
  let checked: ReturnType<typeof XMLValidator.validate>;
  try {
    checked = XMLValidator.validate(text);
  } catch (err) {
    return refuse(`XML: ${(err as Error).message}`);
  }
  if (checked !== true) refuse(`XML: ${checked.err.msg} (line ${checked.err.line})`);
  try {
    return parser.parse(text) as Record<string, unknown>;
  } catch (err) {
    return refuse(`XML: ${(err as Error).message}`);
  }
}
