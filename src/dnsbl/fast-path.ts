/**
 * Hand-written answer path for the common query: one IN question for an address name under the
 * zone, optionally with a plain EDNS0 OPT record. Reads the question in place (fast-question.ts)
 * and writes the answer bytes directly (fast-answer.ts); anything unusual returns undefined and
 * goes to the dns-packet path. Hot path: one allocation per answer (its bytes; none when written
 * into a batch slot), none per label.
 */
import { writeFastAnswer, writeFastAnswerInto } from './fast-answer.ts';
import { question, readFastQuestion } from './fast-question.ts';
import { findIpv4, findIpv6, type ZoneContext } from './zone-context.ts';

/**
 * Answer bytes, or undefined when the general path must decide.
 * `tcp` lifts the UDP size limit (RFC 7766).
 */
export function answerFast(q: Buffer, ctx: ZoneContext, tcp: boolean): Buffer | undefined {
  if (!readFastQuestion(q, ctx)) return undefined;
  return writeFastAnswer(q, ctx, tcp, askedListing(ctx));
}

/**
 * The UDP answer to the first `len` bytes of `q`, written into `out` (batch-udp.ts's slots):
 * its length, or -1 when the general path must decide. No allocation for an A answer.
 */
export function answerFastInto(q: Buffer, len: number, ctx: ZoneContext, out: Buffer): number {
  if (!readFastQuestion(q, ctx, len)) return -1;
  return writeFastAnswerInto(q, ctx, askedListing(ctx), out);
}

/** The listing of the address the question just read names (undefined: not listed). */
function askedListing(ctx: ZoneContext) {
  return question.int >= 0 ? findIpv4(ctx, question.int) : findIpv6(ctx, question.hex);
}
