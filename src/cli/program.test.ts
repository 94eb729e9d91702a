/**
 * The lazy program (issue #36 item 2): `netrep --help` lists every group's commands from the
 * table in program.ts, as their own definitions would; a command line loads only the group of
 * the command it names.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_GROUPS, createProgram } from './program.ts';

const ARGV = ['node', 'netrep'];

describe('netrep program', () => {
  it('lists each command as its own definition does, with no group loaded', async () => {
    const lazy = await createProgram([...ARGV, '--help']);
    const full = await createProgram([...ARGV, '--help'], COMMAND_GROUPS);
    expect(lazy.helpInformation()).toBe(full.helpInformation());
    expect(lazy.commands.map((c) => c.name())).toEqual(full.commands.map((c) => c.name()));
  });

  it('the table names exactly the top-level commands each group registers', async () => {
    for (const group of COMMAND_GROUPS) {
      const bare = new Command('netrep');
      (await group.load())(bare);
      expect(bare.commands.map((c) => c.name())).toEqual(Object.keys(group.commands));
    }
  });

  it('a command line loads the group of its command, and `help <command>` too', async () => {
    const keys = await createProgram([...ARGV, 'keys', 'create', '--name', 'x']);
    expect(keys.commands.find((c) => c.name() === 'keys')?.commands.map((c) => c.name())).toContain('create');
    expect(keys.commands.find((c) => c.name() === 'dataset')?.commands).toEqual([]);
    const help = await createProgram([...ARGV, 'help', 'dataset']);
    expect(help.commands.find((c) => c.name() === 'dataset')?.commands.length).toBeGreaterThan(0);
  });
});
