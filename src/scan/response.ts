/**
 * The head of an HTTP/1.x response as the scanner read it (at most 64 KiB): the status code,
 * the `Server` header, a redirect's Location host and the body's title. Anything that does not
 * start with an HTTP status line is not HTTP.
 */
import { titleOf } from './title.ts';

export interface ResponseFacts {
  http: boolean;
  status: number | null;
  server: string | null;
  redirect_host: string | null;
  title: string | null;
}

/** Header values are cut to this many characters. */
const HEADER_MAX = 256;

const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: [^\r\n]*)?\r?\n/;

function headerValue(head: string, name: string): string | null {
  const re = new RegExp(`^${name}:[ \\t]*([^\\r\\n]*)`, 'im');
  const v = re.exec(head)?.[1]?.trim();
  return v ? v.slice(0, HEADER_MAX) : null;
}

/** The host a Location names (absolute or scheme-relative), null for a path on the same host. */
export function locationHost(location: string | null): string | null {
  if (!location) return null;
  try {
    const url = new URL(location, 'http://same.invalid/');
    return url.hostname === 'same.invalid' ? null : url.hostname;
  } catch {
    return null;
  }
}

export function readResponse(bytes: Buffer): ResponseFacts {
  // latin1 keeps every byte one character; a title in UTF-8 is re-read below.
  const text = bytes.toString('latin1');
  const status = STATUS_LINE.exec(text);
  if (!status) return { http: false, status: null, server: null, redirect_host: null, title: null };
  const end = text.search(/\r?\n\r?\n/);
  const head = end === -1 ? text : text.slice(0, end);
  const code = Number(status[1]);
  const location = code >= 300 && code < 400 ? headerValue(head, 'location') : null;
  const bodyStart = end === -1 ? bytes.length : Buffer.byteLength(text.slice(0, end), 'latin1');
  const body = bytes.subarray(bodyStart).toString('utf8');
  return {
    http: true,
    status: code,
    server: headerValue(head, 'server'),
    redirect_host: locationHost(location),
    title: titleOf(body),
  };
}
