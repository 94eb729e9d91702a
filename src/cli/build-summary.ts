/**
 * The table a build ends with: every file it read (npm packages, then the recognised upstream
 * files), its source id, rows read and rejected; then every file under --from DIR it ignored.
 */
import type { SourceInfo } from '../dataset/index.ts';

function note(s: SourceInfo): string {
  if (s.note) return s.note;
  const first = s.rejectedSample[0];
  if (s.rows === 0) return first ? `no rows read; line ${first.line}: ${first.reason}` : 'no rows read';
  return first ? `first rejected: line ${first.line}: ${first.reason}` : '';
}

/** Names joined by ", " and wrapped at `width`, continuation lines indented by two spaces. */
function wrapList(head: string, names: readonly string[], width: number): string {
  const lines: string[] = [];
  let line = head;
  names.forEach((name, i) => {
    const piece = i < names.length - 1 ? `${name},` : name;
    if (line !== head && line.length + 1 + piece.length > width) {
      lines.push(line);
      line = `  ${piece}`;
    } else {
      line = `${line} ${piece}`;
    }
  });
  lines.push(line);
  return lines.join('\n');
}

/**
 * `unrecognised` is null for a build without --from (nothing to list); otherwise every ignored
 * file, an empty list included, so the user sees what was and was not used.
 */
export function formatBuildSummary(
  sources: readonly SourceInfo[],
  unrecognised: readonly string[] | null,
  width = 100,
): string {
  const rows = sources.map((s) => ({
    file: s.path,
    id: s.id,
    read: s.note ? '-' : String(s.rows),
    rejected: s.note ? '-' : String(s.rejected),
    note: note(s),
  }));
  const head = { file: 'file', id: 'source', read: 'rows', rejected: 'rejected', note: '' };
  const all = [head, ...rows];
  const w = {
    file: Math.max(...all.map((r) => r.file.length)),
    id: Math.max(...all.map((r) => r.id.length)),
    read: Math.max(...all.map((r) => r.read.length)),
    rejected: Math.max(...all.map((r) => r.rejected.length)),
  };
  const lines = all.map((r) =>
    [
      r.file.padEnd(w.file),
      r.id.padEnd(w.id),
      r.read.padStart(w.read),
      r.rejected.padStart(w.rejected),
      r.note,
    ]
      .join('  ')
      .trimEnd(),
  );
  if (unrecognised !== null) {
    lines.push(
      unrecognised.length === 0
        ? 'not recognised (ignored): none'
        : wrapList('not recognised (ignored):', unrecognised, width),
    );
  }
  return `${lines.join('\n')}\n`;
}
