/**
 * The parts of a multipart/form-data body (RFC 7578) as a browser posts a file form: each part's
 * bytes and Content-Type by its field name (the first part of a name wins). Only what the
 * dashboard's upload needs: no nested multipart, no transfer encodings (browsers send none).
 */

export interface FormPart {
  bytes: Buffer;
  /** The part's media type, lower case, parameters dropped; null when it names none. */
  type: string | null;
}

const BOUNDARY = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i;

function boundaryOf(contentType: string): string | null {
  if (!/^\s*multipart\/form-data\s*;/i.test(contentType)) return null;
  const m = BOUNDARY.exec(contentType);
  return m?.[1] ?? m?.[2] ?? null;
}

/** The part whose head starts at `at` (after its CRLF): name, part and where the next delimiter ends. */
function partAt(body: Buffer, at: number, between: Buffer) {
  const headEnd = body.indexOf('\r\n\r\n', at);
  const end = headEnd < 0 ? -1 : body.indexOf(between, headEnd + 4);
  if (end < 0) return null;
  const head = body.subarray(at, headEnd).toString('latin1');
  const name = /^content-disposition:\s*form-data\s*;(?:[^\r\n]*;)?\s*name="([^"]*)"/im.exec(head)?.[1];
  const type = /^content-type:\s*([^;\r\n]+)/im.exec(head)?.[1]?.trim().toLowerCase() ?? null;
  return { name, part: { bytes: body.subarray(headEnd + 4, end), type }, next: end + between.length };
}

/** The parts by name, or null when the body is not multipart/form-data or is cut short. */
export function multipartParts(body: Buffer, contentType: string): Map<string, FormPart> | null {
  const boundary = boundaryOf(contentType);
  if (!boundary) return null;
  const opening = Buffer.from(`--${boundary}`);
  const between = Buffer.from(`\r\n--${boundary}`);
  let at = body.indexOf(opening);
  // The first delimiter opens the body or a line of its own (a preamble before it is ignored).
  if (at < 0 || (at > 0 && body.subarray(at - 2, at).toString('latin1') !== '\r\n')) return null;
  at += opening.length;
  const parts = new Map<string, FormPart>();
  for (;;) {
    const after = body.subarray(at, at + 2).toString('latin1');
    if (after === '--') return parts;
    const read = after === '\r\n' ? partAt(body, at + 2, between) : null;
    if (!read) return null;
    if (read.name !== undefined && !parts.has(read.name)) parts.set(read.name, read.part);
    at = read.next;
  }
}
