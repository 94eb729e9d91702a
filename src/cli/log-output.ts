/**
 * How `netrep serve` and `netrep worker` speak: on a terminal, human lines (the start banner as
 * text, pino's records as `HH:MM:SS LEVEL message key=value`); otherwise one JSON object a line
 * for everything, the banner included, so a log collector reads a single format (issue 19).
 */

export interface LogStream {
  write(line: string): void;
}

/** The subset of pino's logger the banner uses. */
export interface BannerLogger {
  info(fields: Record<string, unknown>, msg: string): void;
  child(bindings: Record<string, unknown>, options: { level: string }): BannerLogger;
}

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** pino's own fields, shown in the line's head or dropped. */
const HEAD_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res', 'err']);

function clockTime(time: unknown): string {
  const d = new Date(typeof time === 'number' ? time : Date.now());
  return d.toISOString().slice(11, 19);
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/** A record's head: time, level, request id, request line, status, duration and message. */
function headParts(rec: Record<string, unknown>): string[] {
  const level = LEVELS[Number(rec.level)] ?? 'LOG';
  const parts = [clockTime(rec.time), level.padEnd(5)];
  if (rec.reqId !== undefined) parts.push(`[${String(rec.reqId)}]`);
  const req = rec.req as { method?: string; url?: string } | undefined;
  if (req?.method) parts.push(`${req.method} ${req.url ?? ''}`);
  const res = rec.res as { statusCode?: number } | undefined;
  if (res?.statusCode !== undefined) parts.push(`→ ${res.statusCode}`);
  if (typeof rec.responseTime === 'number') parts.push(`${rec.responseTime.toFixed(1)} ms`);
  if (rec.msg !== undefined && rec.msg !== '') parts.push(String(rec.msg));
  return parts;
}

/** One pino JSON record as a human line (with the stack of an error below it). */
export function prettyLine(json: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const parts = headParts(rec);
  for (const [k, v] of Object.entries(rec)) {
    if (HEAD_FIELDS.has(k) || k === 'responseTime' || v === undefined) continue;
    parts.push(`${k}=${scalar(v)}`);
  }
  let line = `${parts.join(' ')}\n`;
  const err = rec.err as { message?: string; stack?: string } | undefined;
  if (err) line += `${err.stack ?? err.message ?? JSON.stringify(err)}\n`;
  return line;
}

/** A pino destination that writes human lines to `out` (pino hands it one record a call). */
export function createPrettyStream(out: LogStream): LogStream {
  return {
    write(chunk: string) {
      for (const json of chunk.split('\n')) if (json.trim() !== '') out.write(prettyLine(json));
    },
  };
}

/** Fastify logger options for a command's output: pretty on a terminal, pino JSON otherwise. */
export function loggerOptions(
  level: string,
  pretty: boolean,
  out: LogStream = process.stdout,
): { level: string; stream?: LogStream } {
  return pretty ? { level, stream: createPrettyStream(out) } : { level };
}

/** One fact of the start banner: its human sentence, and the fields its JSON record carries. */
export interface BannerFact {
  text: string;
  fields: Record<string, unknown>;
}

/**
 * Prints the banner: the sentences on a terminal; otherwise one info record each, written
 * whatever NETREP_LOG_LEVEL is (a child logger at info level), so they are never lost.
 */
export function printBanner(
  facts: readonly BannerFact[],
  options: { pretty: boolean; log: BannerLogger; out?: LogStream },
): void {
  const out = options.out ?? process.stdout;
  if (options.pretty) {
    for (const f of facts) out.write(`${f.text}\n`);
    return;
  }
  const log = options.log.child({}, { level: 'info' });
  for (const f of facts) log.info(f.fields, f.text.trim());
}
