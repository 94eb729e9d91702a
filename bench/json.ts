/**
 * JSON answers: each way netrep writes a success answer other than the schema serializer
 * (src/http/serializer.ts, fast-json-stringify over the route's schema), timed against that
 * serializer on the same value in the same process, after checking both write the same bytes.
 * The README's architecture part names these rows as the reason each path has its own writer:
 * - `json reputation answer`: the hand-written data writer (reputation/answer-json.ts) that
 *   `envelope(ReputationData, reputationDataJson)` plugs into the serializer, against the schema
 *   serializer of `envelope(ReputationData)`.
 * - `json ip answer (fast path)`: the keyed lookup's fast path (http/fast-lookup.ts), the answer
 *   cache's JSON.stringify text (made once per cached answer) in a template envelope, against the
 *   schema serializer of `envelope(IpAnswer)` on a cache hit.
 * Values: the recorded /openapi.json examples (the real app's answers on the test fixtures), the
 * reputation one with the 30 daily history points of a real answer.
 * Best of five rounds of 200 000 (ip) or 50 000 (reputation) writes, each encoded to bytes, with
 * processing_time_ms varying as it does per request.
 * Run: node --import tsx bench/json.ts
 */

import { getEmailReputationExample } from '../src/http/examples/email.ts';
import { lookupIpExample } from '../src/http/examples/ip.ts';
import { envelope } from '../src/http/schemas.ts';
import { buildSerializer } from '../src/http/serializer.ts';
import { IpAnswer } from '../src/intel/schemas.ts';
import { reputationDataJson } from '../src/reputation/index.ts';
import { ReputationData } from '../src/reputation/types.ts';

type Write = (payload: { data: unknown; meta: Record<string, unknown> }) => string;

const ROUNDS = 5;
const compile = buildSerializer({}, {});
const serializerOf = (schema: unknown): Write =>
  compile({ schema, method: 'GET', url: '/bench', httpStatus: '200' } as Parameters<
    typeof compile
  >[0]) as Write;

/**
 * Nanoseconds per call, best of ROUNDS rounds of `n` calls, each answer encoded to bytes as the
 * socket write does (a rope left unread would flatter a template); `fn` gets the call's number.
 */
function timeNs(n: number, fn: (i: number) => string): number {
  let best = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += Buffer.from(fn(i)).length;
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / n);
  }
  if (sink === 0) throw new Error('nothing written');
  return best;
}

function row(name: string, schemaNs: number, ownNs: number, own: string, bytes: number): void {
  process.stdout.write(
    `${name.padEnd(28)} schema serializer ${(schemaNs / 1000).toFixed(2).padStart(6)} us  ${own} ${(ownNs / 1000).toFixed(2).padStart(6)} us  ${(schemaNs / ownNs).toFixed(2)}x  (${bytes} bytes)\n`,
  );
}

function sameBytes(name: string, a: string, b: string): void {
  if (a !== b) throw new Error(`${name}: the two writers differ:\n${a}\n${b}`);
}

// The reputation answer, as the route writes it (meta as the envelope hook adds it).
{
  // The example with its history filled to the 30 daily points a real answer carries, each
  // point one kept object from answer to answer (as the history cache keeps them).
  const example = getEmailReputationExample.response as Parameters<typeof reputationDataJson>[0];
  const day0 = Date.parse('2026-05-17T12:00:00.000Z');
  const history = Array.from({ length: 30 }, (_, d) => ({
    score: 60 + (d % 7),
    level: 'neutral' as const,
    computed_at: new Date(day0 + d * 86_400_000).toISOString(),
  }));
  const data = { ...example, history };
  const payload = {
    data,
    meta: { processing_time_ms: 1, request_id: '0b4f3f0e-6d7e-4d5e-9a51-2f3c0a7b6c1d' },
  };
  const bySchema = serializerOf(envelope(ReputationData));
  const byHand = serializerOf(envelope(ReputationData, reputationDataJson));
  sameBytes('reputation', bySchema(payload), byHand(payload));
  const n = 50_000;
  row(
    'json reputation answer',
    timeNs(n, (i) => bySchema({ data, meta: { ...payload.meta, processing_time_ms: i & 7 } })),
    timeNs(n, (i) => byHand({ data, meta: { ...payload.meta, processing_time_ms: i & 7 } })),
    'answer-json.ts',
    Buffer.byteLength(byHand(payload)),
  );
}

// The IP answer on a cache hit: the fast path writes the cached text into a template.
{
  const data = lookupIpExample.response;
  const cached = JSON.stringify(data);
  const id = '0b4f3f0e-6d7e-4d5e-9a51-2f3c0a7b6c1d';
  const meta = { processing_time_ms: 0, request_id: id, cache_status: 'HIT', dataset_version: 1 };
  const bySchema = serializerOf(envelope(IpAnswer));
  // The template of http/fast-lookup.ts's answer().
  const byTemplate = (ms: number) =>
    `{"data":${cached},"meta":{"processing_time_ms":${ms},"request_id":"${id}","cache_status":"HIT","dataset_version":1}}`;
  sameBytes('ip', bySchema({ data, meta }), byTemplate(0));
  const n = 200_000;
  row(
    'json ip answer (fast path)',
    timeNs(n, (i) => bySchema({ data, meta: { ...meta, processing_time_ms: i & 7 } })),
    timeNs(n, (i) => byTemplate(i & 7)),
    'cached text   ',
    Buffer.byteLength(cached),
  );
}
