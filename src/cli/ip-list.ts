/**
 * The address lists `netrep lookup` and `netrep summarize` read: arguments, then `--file PATH`
 * (`-` for stdin), one address a line; blank lines and `#` comments are skipped. Also the
 * snapshot they answer from, loaded directly (no server, no store).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { loadConfig } from '../config.ts';
import { type ParsedIp, parseIp } from '../core/ip.ts';
import { loadLatestSnapshot } from '../dataset/index.ts';
import { createIntel, type Intel } from '../intel/index.ts';

export interface ListEntry {
  /** The text as given (trimmed, comment removed). */
  text: string;
  /** Where it came from: `argument 2`, `line 17`. */
  where: string;
  /** null when the text is not an IP address. */
  ip: ParsedIp | null;
}

export interface ListSource {
  args: readonly string[];
  file?: string | undefined;
}

/** Exit code when the command has nothing to read (commander's own usage errors take 1). */
export const EXIT_USAGE = 2;

export function hasInput(source: ListSource): boolean {
  return source.args.length > 0 || source.file !== undefined;
}

export async function* readList(source: ListSource): AsyncGenerator<ListEntry> {
  let n = 0;
  for (const text of source.args) {
    n++;
    yield { text, where: `argument ${n}`, ip: parseIp(text) };
  }
  if (source.file === undefined) return;
  const input = source.file === '-' ? process.stdin : createReadStream(source.file);
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const raw of lines) {
    line++;
    const hash = raw.indexOf('#');
    const text = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    if (text === '') continue;
    yield { text, where: `line ${line}`, ip: parseIp(text) };
  }
}

/** The lookup over the newest snapshot, or null (after saying why) when there is none. */
export function loadIntel(): Intel | null {
  const snapshot = loadLatestSnapshot(loadConfig().dataDir);
  if (!snapshot) {
    process.stderr.write('netrep: no dataset snapshot; run `netrep dataset build` first\n');
    return null;
  }
  // A command answers a list and exits: no lookup tables to build first (intel/lookup-direct.ts).
  return createIntel({ snapshot, tables: 'direct' });
}

export function invalidLine(entry: ListEntry): string {
  return `INVALID_IP: ${JSON.stringify(entry.text.slice(0, 100))} is not an IP address (${entry.where})\n`;
}

/** Collects output and writes it in large pieces (one write per line costs more than a lookup). */
export function createOutput(stream: NodeJS.WritableStream = process.stdout): {
  write(text: string): void;
  flush(): Promise<void>;
} {
  let parts: string[] = [];
  let size = 0;
  let pending: Promise<void> = Promise.resolve();
  const drain = () => {
    if (parts.length === 0) return;
    const text = parts.join('');
    parts = [];
    size = 0;
    const ok = stream.write(text);
    if (!ok) pending = new Promise((resolve) => stream.once('drain', () => resolve()));
  };
  return {
    write(text) {
      parts.push(text);
      size += text.length;
      if (size >= 1 << 16) drain();
    },
    async flush() {
      drain();
      await pending;
    },
  };
}
