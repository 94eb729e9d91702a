/**
 * A whole email (RFC 5322 + MIME) carrying a report: postal-mime reads the parts; this file picks
 * the ones a report can be in. Aggregate and TLS reports are attachments (XML, gzip, zip, JSON);
 * a failure report is a multipart/report whose message/feedback-report part holds the ARF fields
 * (RFC 6591 §3) and whose message/rfc822 or text/rfc822-headers part holds the failing message.
 */
import PostalMime, { type Attachment } from 'postal-mime';
import { AppError } from '../core/errors.ts';

export interface MessageParts {
  /** The From address of the report message. */
  from: string | null;
  /** Message-ID of the report message, without the angle brackets. */
  messageId: string | null;
  subject: string | null;
  /** Attachments that can hold an aggregate or TLS report, in message order. */
  documents: { name: string | null; bytes: Buffer }[];
  /** The message/feedback-report part's text, when there is one. */
  feedback: string | null;
  /** Headers of the failing message (message/rfc822 or text/rfc822-headers part). */
  original: string | null;
  /** The first text/plain body (a failure report without an ARF part states its facts there). */
  text: string | null;
}

const DOCUMENT_TYPES =
  /^(application\/(gzip|x-gzip|zip|x-zip|x-zip-compressed|xml|json|octet-stream|tlsrpt\+json|tlsrpt\+gzip)|text\/xml)$/i;
const DOCUMENT_NAMES = /\.(xml|gz|zip|json)$/i;

function bytesOf(a: Attachment): Buffer {
  const c = a.content;
  return typeof c === 'string' ? Buffer.from(c, 'utf8') : Buffer.from(c as ArrayBuffer);
}

function headersOfMessage(raw: string): string {
  const end = raw.search(/\r?\n\r?\n/);
  return end < 0 ? raw : raw.slice(0, end);
}

function stripBrackets(id: string | undefined): string | null {
  if (!id) return null;
  return id.trim().replace(/^<|>$/g, '') || null;
}

/** Reads the parts of a report message; refuses bytes postal-mime cannot read as a message. */
export async function readMessage(bytes: Buffer): Promise<MessageParts> {
  let email: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    email = await PostalMime.parse(bytes, { attachmentEncoding: 'arraybuffer' });
  } catch (err) {
    throw new AppError('INVALID_REPORT', `email: ${(err as Error).message}`);
  }
  const parts: MessageParts = {
    from: email.from?.address ?? null,
    messageId: stripBrackets(email.messageId),
    subject: email.subject ?? null,
    documents: [],
    feedback: null,
    original: null,
    text: email.text ?? null,
  };
  for (const a of email.attachments) {
    const type = a.mimeType.toLowerCase();
    if (type === 'message/feedback-report') parts.feedback ??= bytesOf(a).toString('utf8');
    else if (type === 'message/rfc822' || type === 'text/rfc822-headers')
      parts.original ??= headersOfMessage(bytesOf(a).toString('utf8'));
    else if (DOCUMENT_TYPES.test(type) || DOCUMENT_NAMES.test(a.filename ?? ''))
      parts.documents.push({ name: a.filename ?? null, bytes: bytesOf(a) });
  }
  return parts;
}
