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

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  processEntities: false,
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
