/** `.env` files: `KEY=value` lines, as `netrep` reads them beside process.env (config.ts). */
import fs from 'node:fs';

/** Parses `KEY=value` lines; `#` comments and blank lines are skipped, quotes around values removed. */
export function parseDotEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line
      .slice(0, eq)
      .trim()
      .replace(/^export\s+/, '');
    let value = line.slice(eq + 1).trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0]) {
      value = value.slice(1, -1);
    }
    out[key] = value;
  }
  return out;
}

/** The settings of a `.env` file, or none when there is no such file. */
export function readDotEnvFile(file: string): Record<string, string> {
  return fs.existsSync(file) ? parseDotEnv(fs.readFileSync(file, 'utf8')) : {};
}
