import { answerGeneral, headerReply } from './answer.ts';
import { answerFast, answerFastInto } from './fast-path.ts';
import type { DnsblLogger } from './types.ts';
import type { ZoneContext } from './zone-context.ts';

const RCODE_SERVFAIL = 2;

export interface Responder {
  /** Answer bytes for one DNS message, or null when nothing must be sent back. Never throws. */
  respond(query: Buffer, tcp: boolean): Buffer | null;
  /**
   * The UDP answer to the first `length` bytes of `query`, written into `out` (at least 65,536
   * bytes; batch-udp.ts's slots): its length, or -1 when nothing must be sent back. Never throws.
   */
  respondInto(query: Buffer, length: number, out: Buffer): number;
  /** Queries whose answering threw (each answered SERVFAIL, or dropped when not a query), since start. */
  answerErrors(): number;
}

export interface ResponderOptions {
  /** false sends every query through the dns-packet path (tests compare both paths). */
  fastPath?: boolean;
  logger?: DnsblLogger;
}

export function createResponder(ctx: ZoneContext, options: ResponderOptions = {}): Responder {
  const fast = options.fastPath ?? true;
  let errors = 0;
  /** A bug or a failing index must cost one answer, never the server (RFC 1035 SERVFAIL). */
  const failed = (err: unknown, query: Buffer): Buffer | null => {
    errors++;
    options.logger?.error({ err }, 'dnsbl: answering a query failed');
    if (query.length < 12 || ((query[2] as number) & 0x80) !== 0) return null;
    return headerReply(query, RCODE_SERVFAIL);
  };
  return {
    answerErrors: () => errors,
    respond(query, tcp) {
      try {
        if (fast) {
          const out = answerFast(query, ctx, tcp);
          if (out) return out;
        }
        return answerGeneral(query, ctx, tcp);
      } catch (err) {
        return failed(err, query);
      }
    },
    respondInto(query, length, out) {
      try {
        if (fast) {
          const written = answerFastInto(query, length, ctx, out);
          if (written >= 0) return written;
        }
        // The general path (dns-packet) reads a message of its own length, and allocates anyway.
        const answer = answerGeneral(query.subarray(0, length), ctx, false);
        return answer ? answer.copy(out) : -1;
      } catch (err) {
        const answer = failed(err, query.subarray(0, length));
        return answer ? answer.copy(out) : -1;
      }
    },
  };
}
