/** `netrep config`: the settings in effect, or the table of defaults. */
import { settingsInEffect, settingsTable } from '../config.ts';
import { formatTable } from './table.ts';

/** One aligned row per setting; unset values show as (unset). */
export function configTable(rows: ReturnType<typeof settingsInEffect>): string {
  return formatTable([
    ['VARIABLE', 'VALUE', 'SOURCE'],
    ...rows.map((r) => [r.env, r.value === '' ? '(unset)' : r.value, r.source]),
  ]);
}

export function printSettings(defaults: boolean): void {
  process.stdout.write(defaults ? `${settingsTable()}\n` : configTable(settingsInEffect()));
}
