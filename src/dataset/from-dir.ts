/**
 * `--from DIR`: the check that DIR can be built from, and the scan that tells the upstream files
 * a build reads (sources.ts paths) from everything else under DIR, so the build can say both.
 */
import { accessSync, constants, type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { type SourceSpec, UPSTREAM_SOURCES } from './sources.ts';

export interface RecognisedFile {
  /** Relative to DIR with `/` separators: equal to `spec.path`. */
  path: string;
  spec: SourceSpec;
  bytes: number;
}

export interface FromDirScan {
  dir: string;
  /** In the order of the source list, which is the order a build reads them. */
  recognised: RecognisedFile[];
  /** Every other file under DIR, relative with `/` separators, sorted. */
  unrecognised: string[];
}

/** DIR cannot be built from; the message is one sentence naming DIR and the reason. */
export class FromDirError extends Error {
  override name = 'FromDirError';
}

function reason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code ?? (err as Error).message;
}

interface Walk {
  files: { rel: string; bytes: number }[];
  seen: Set<string>;
}

function walk(root: string, rel: string, into: Walk): void {
  const abs = path.join(root, rel);
  // A symlinked directory is followed once: a link back up the tree must not loop.
  const real = realpathSync(abs);
  if (into.seen.has(real)) return;
  into.seen.add(real);
  let entries: Dirent[];
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch (err) {
    const what = rel === '' ? 'the directory' : `its subdirectory ${rel}`;
    throw new FromDirError(`cannot build from ${root}: ${what} cannot be read (${reason(err)})`);
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(path.join(root, childRel));
    } catch {
      // A dangling symlink: listed, so the user sees it, but there is nothing to read.
      into.files.push({ rel: childRel, bytes: 0 });
      continue;
    }
    if (st.isDirectory()) walk(root, childRel, into);
    else into.files.push({ rel: childRel, bytes: st.size });
  }
}

/** Where a file that sits one level too deep or too shallow was expected, for the error hint. */
function misplaced(files: readonly string[], sources: readonly SourceSpec[]): string | null {
  for (const rel of files) {
    const spec = sources.find((s) => s.path.endsWith(`/${rel}`) || rel.endsWith(`/${s.path}`));
    if (spec) return `found ${rel}, but ${spec.id} is read from ${spec.path} relative to the directory given`;
  }
  return null;
}

/**
 * Checks DIR and sorts its files into recognised and unrecognised; throws FromDirError when DIR
 * is missing, not a directory, unreadable, empty, or holds no recognised upstream file (a build
 * from it would silently be a build from the npm packages alone).
 */
export function scanFromDir(dir: string, sources: readonly SourceSpec[] = UPSTREAM_SOURCES): FromDirScan {
  if (dir.trim() === '') throw new FromDirError('cannot build: --from was given an empty path');
  checkDirectory(dir);
  const found: Walk = { files: [], seen: new Set() };
  walk(dir, '', found);
  if (found.files.length === 0) throw new FromDirError(`cannot build from ${dir}: the directory is empty`);
  const recognised = recognisedFiles(dir, found, sources);
  const used = new Set(recognised.map((r) => r.path));
  const unrecognised = found.files.map((f) => f.rel).filter((rel) => !used.has(rel));
  if (recognised.length === 0) throw noneRecognised(dir, unrecognised, sources);
  return { dir, recognised, unrecognised };
}

/** Throws FromDirError unless dir is a directory that can be read. */
function checkDirectory(dir: string): void {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(dir);
  } catch (err) {
    const code = reason(err);
    throw new FromDirError(
      code === 'ENOENT'
        ? `cannot build from ${dir}: no such directory`
        : `cannot build from ${dir}: it cannot be read (${code})`,
    );
  }
  if (!st.isDirectory()) throw new FromDirError(`cannot build from ${dir}: it is a file, not a directory`);
}

/** The found files at a source's path, in source order; throws FromDirError when one cannot be read. */
function recognisedFiles(dir: string, found: Walk, sources: readonly SourceSpec[]): RecognisedFile[] {
  const byPath = new Map(found.files.map((f) => [f.rel, f]));
  const recognised: RecognisedFile[] = [];
  for (const spec of sources) {
    const f = byPath.get(spec.path);
    if (!f) continue;
    try {
      accessSync(path.join(dir, spec.path), constants.R_OK);
    } catch (err) {
      throw new FromDirError(`cannot build from ${dir}: ${spec.path} cannot be read (${reason(err)})`);
    }
    recognised.push({ path: spec.path, spec, bytes: f.bytes });
  }
  return recognised;
}

/** The error for a directory with no recognised file, naming a misplaced one when there is. */
function noneRecognised(dir: string, unrecognised: string[], sources: readonly SourceSpec[]): FromDirError {
  const hint = misplaced(unrecognised, sources);
  const n = unrecognised.length;
  return new FromDirError(
    `cannot build from ${dir}: none of its ${n} file${n === 1 ? ' is' : 's is'} a recognised upstream file` +
      (hint
        ? ` (${hint})`
        : ' (expected paths such as tor/torbulkexitlist.txt or cloud/aws/ip-ranges.json; see docs/operations.md "Importing and updating data")'),
  );
}
