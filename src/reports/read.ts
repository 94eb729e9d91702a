/**
 * From uploaded bytes to one report: the bytes decide what they are (magic numbers first, the
 * declared Content-Type only admits the upload): gzip and zip are opened once (an archive inside
 * an archive is refused), an email is searched for its report part, XML is an aggregate report
 * and JSON a TLS report. Every refusal is INVALID_REPORT with its reason, or PAYLOAD_TOO_LARGE
 * when the content inflates past the cap.
 */
import { AppError } from '../core/errors.ts';
import { readAggregate } from './aggregate.ts';
import { GZIP_MAGIC, gunzipCapped, startsWith, unzipSingle, ZIP_MAGIC } from './archive.ts';
import { readFailure } from './failure.ts';
import { refuse } from './fields.ts';
import { readMessage } from './message.ts';
import { readTls } from './tls.ts';
import type { ParsedReport } from './types.ts';

export interface ReadReport {
  report: ParsedReport;
  /** How it arrived, outermost first: `eml>zip>xml`. */
  format: string;
}

/** Content types an upload may declare; anything else is 415 before a byte is read. */
export const ACCEPTED_TYPES = [
  'application/xml',
  'text/xml',
  'application/json',
  'application/tlsrpt+json',
  'application/gzip',
  'application/x-gzip',
  'application/tlsrpt+gzip',
  'application/zip',
  'application/x-zip-compressed',
  'message/rfc822',
  'application/octet-stream',
] as const;

type Shape = 'gzip' | 'zip' | 'xml' | 'json' | 'eml' | null;

function firstChar(bytes: Uint8Array): string {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && [0x20, 0x09, 0x0d, 0x0a].includes(bytes[i] as number)) i++;
  return i < bytes.length ? String.fromCharCode(bytes[i] as number) : '';
}

function shapeOf(bytes: Uint8Array): Shape {
  if (startsWith(bytes, GZIP_MAGIC)) return 'gzip';
  if (startsWith(bytes, ZIP_MAGIC)) return 'zip';
  const c = firstChar(bytes);
  if (c === '<') return 'xml';
  if (c === '{') return 'json';
  // An email starts with a header field: a name, a colon (RFC 5322 §2.2), or an mbox From line.
  const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
  return /^([!-9;-~]{1,76}:|From \S)/.test(head) ? 'eml' : null;
}

function readDocument(bytes: Uint8Array, cap: number, outer: string[]): ReadReport {
  const shape = shapeOf(bytes);
  const format = [...outer, shape ?? '?'];
  if ((shape === 'gzip' || shape === 'zip') && outer.some((f) => f === 'gzip' || f === 'zip'))
    refuse('an archive inside an archive is not accepted');
  switch (shape) {
    case 'gzip':
      return readDocument(gunzipCapped(bytes, cap), cap, format);
    case 'zip':
      return readDocument(unzipSingle(bytes, cap).bytes, cap, format);
    case 'xml':
      return { report: readAggregate(bytes), format: format.join('>') };
    case 'json':
      return { report: readTls(bytes), format: format.join('>') };
    default:
      return refuse(
        outer.length === 0
          ? 'the body is not XML, JSON, gzip, zip or an email'
          : `the ${outer.at(-1)} holds neither XML nor JSON`,
      );
  }
}

async function readEmail(bytes: Uint8Array, cap: number): Promise<ReadReport> {
  // An mbox "From " separator line (as saved from some mailboxes) is not part of the message.
  const mbox = Buffer.from(bytes.subarray(0, 5)).toString('latin1') === 'From ';
  const start = mbox ? bytes.indexOf(0x0a) + 1 : 0;
  const parts = await readMessage(Buffer.from(bytes.subarray(start)));
  if (parts.feedback) return { report: readFailure(parts), format: 'eml>arf' };
  const [document, ...others] = parts.documents;
  if (others.length > 0)
    refuse(`the email carries ${parts.documents.length} report attachments; upload one at a time`);
  if (document) return readDocument(document.bytes, cap, ['eml']);
  return { report: readFailure(parts), format: 'eml>text' };
}

/** Reads the one report an upload holds. `cap` bounds every inflated or decoded size. */
export async function readReport(bytes: Uint8Array, cap: number): Promise<ReadReport> {
  if (bytes.length === 0) refuse('the body is empty');
  try {
    return shapeOf(bytes) === 'eml' ? await readEmail(bytes, cap) : readDocument(bytes, cap, []);
  } catch (err) {
    if (err instanceof AppError) throw err;
    // A parser's own failure on hostile input (deep nesting, a stack overflow) is a refusal too.
    throw new AppError('INVALID_REPORT', `unreadable: ${(err as Error).message}`.slice(0, 300));
  }
}
