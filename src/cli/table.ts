/**
 * The aligned text tables of the CLI (keys list, lookup, summarize, config). On its own, so a
 * command that prints one does not load the lookup command's dataset modules.
 */
export function formatTable(rows: string[][]): string {
  const widths = rows.reduce<number[]>(
    (w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)),
    [],
  );
  return rows
    .map(
      (row) =>
        `${row
          .map((c, i) => c.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}
