/**
 * The configuration snippets README.md shows operators are the ones the integration tests use:
 * a test reads the fenced block that follows `<!-- snippet: NAME -->` and feeds it to the real
 * program (rspamd, SpamAssassin, nginx, systemd …), so the README cannot drift from what works.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

/** The body of the fenced code block after `<!-- snippet: name -->` in README.md. */
export function readmeSnippet(name: string, file: string = README): string {
  const text = readFileSync(file, 'utf8');
  const marker = `<!-- snippet: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${file} has no ${marker}`);
  const fence = /```[^\n]*\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length));
  if (!fence?.[1]) throw new Error(`${file}: no fenced block after ${marker}`);
  return `${fence[1]}\n`;
}
