/**
 * DMARC failure reports (RFC 7489 §7.3, RFC 6591 ARF). The facts come from the
 * message/feedback-report part. A report without one (Exim's plain-text "DMARC Forensic Report")
 * is accepted with what its text states: Sender IP Address and Sender Domain are required there,
 * the rest is kept when present; without them it is refused with the reason.
 */
import crypto from 'node:crypto';
import { optionalAddress, refuse, textOf } from './fields.ts';
import type { MessageParts } from './message.ts';
import type { FailureSample, ParsedReport } from './types.ts';

/** Header-style fields ("Name: value", continuation lines folded), names lower-cased; the first of each wins. */
export function fieldsOf(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  let last: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && last !== null) {
      fields.set(last, `${fields.get(last) ?? ''} ${line.trim()}`);
      continue;
    }
    const m = /^([A-Za-z][A-Za-z0-9 -]{0,40}):\s*(.*)$/.exec(line);
    last = null;
    if (!m?.[1] || fields.has(m[1].toLowerCase())) continue;
    last = m[1].toLowerCase();
    fields.set(last, (m[2] ?? '').trim());
  }
  return fields;
}

function originalFacts(original: string | null): Pick<FailureSample, 'subject' | 'message_id'> {
  const headers = original ? fieldsOf(original) : new Map<string, string>();
  return { subject: textOf(headers.get('subject')), message_id: textOf(headers.get('message-id')) };
}

function fromArf(feedback: string, original: string | null): FailureSample {
  const f = fieldsOf(feedback);
  const type = textOf(f.get('feedback-type')) ?? refuse('feedback-report: Feedback-Type is missing');
  return {
    source_ip: optionalAddress(f.get('source-ip'), 'feedback-report/Source-IP'),
    feedback_type: type.toLowerCase(),
    reported_domain: textOf(f.get('reported-domain'))?.toLowerCase() ?? null,
    arrival_date: textOf(f.get('arrival-date')),
    original_mail_from: textOf(f.get('original-mail-from')),
    original_rcpt_to: textOf(f.get('original-rcpt-to')),
    auth_failure: textOf(f.get('auth-failure')),
    delivery_result: textOf(f.get('delivery-result')),
    dkim_domain: textOf(f.get('dkim-domain')),
    authentication_results: textOf(f.get('authentication-results')),
    ...originalFacts(original),
  };
}

function fromText(text: string): FailureSample {
  // The facts are indented in Exim's text ("  Sender IP Address: 203.0.113.68").
  const f = fieldsOf(text.replace(/^[ \t]+/gm, ''));
  const ip = textOf(f.get('sender ip address'));
  const domain = textOf(f.get('sender domain'));
  if (ip === null || domain === null)
    refuse(
      'the email carries no report: no XML, JSON, gzip or zip attachment, no message/feedback-report part (RFC 6591 §3), no Sender IP Address and Sender Domain lines',
    );
  // The copied headers follow the facts in the same text part.
  const copy = /-{3,}[^\n]*headers[^\n]*\n([\s\S]*)$/i.exec(text)?.[1] ?? null;
  return {
    source_ip: optionalAddress(ip, 'Sender IP Address'),
    feedback_type: 'text',
    reported_domain: domain.toLowerCase(),
    arrival_date: textOf(f.get('received date')),
    original_mail_from: null,
    original_rcpt_to: null,
    auth_failure: 'dmarc',
    delivery_result: null,
    dkim_domain: null,
    authentication_results: copy ? textOf(fieldsOf(copy).get('authentication-results')) : null,
    ...originalFacts(copy),
  };
}

/** A failure report from the parts of its message; the report message's Message-ID is its id. */
export function readFailure(parts: MessageParts): ParsedReport {
  const sample = parts.feedback ? fromArf(parts.feedback, parts.original) : fromText(parts.text ?? '');
  const sender = parts.from?.split('@').pop()?.toLowerCase() || null;
  const reportId =
    parts.messageId ??
    crypto
      .createHash('sha256')
      .update(parts.feedback ?? parts.text ?? '')
      .digest('hex');
  return {
    kind: 'failure',
    orgName: sender ?? 'unknown',
    reportId,
    domain: sample.reported_domain,
    contact: parts.from,
    begin: null,
    end: null,
    policy: null,
    records: [],
    failures: [sample],
    tlsPolicies: [],
    messageCount: 1,
  };
}
