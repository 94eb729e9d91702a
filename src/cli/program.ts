/**
 * The `netrep` command line (CONTRACT §0b): one file per command group, each imported only when
 * its command runs. `--help`, `--version` and a mistyped command import none of them: the
 * program lists every group's commands from the table below (program.test.ts holds it to the
 * help the groups' own definitions print), so a start costs milliseconds, not the Fastify,
 * store and dataset modules a group pulls in (issue #36 item 2).
 */
import { Command, Help } from 'commander';

type Register = (program: Command) => void;

interface CommandGroup {
  /** The group's top-level commands: name → the term and description `netrep --help` shows. */
  commands: Record<string, { term?: string; description: string }>;
  load(): Promise<Register>;
}

/** In the order `netrep --help` lists them. */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  {
    commands: {
      serve: { description: 'serve the HTTP API (and the DNSBL zone and background workers) in one process' },
      worker: {
        description:
          'run only the background workers (blocklist expiry, daily feeds, FCrDNS, audit jobs, webhook deliveries, service scans, the report mailbox, dataset updates) on the shared store',
      },
      migrate: { description: 'apply pending store migrations and exit (serve also does this on start)' },
    },
    load: async () => (await import('./serve.ts')).registerServeCommands,
  },
  {
    commands: {
      users: { description: 'manage dashboard users' },
      keys: { description: 'manage API keys' },
    },
    load: async () => (await import('./accounts.ts')).registerAccountCommands,
  },
  {
    commands: { dnsbl: { description: 'the DNS blocklist zone' } },
    load: async () => (await import('./dnsbl.ts')).registerDnsblCommands,
  },
  {
    commands: { dataset: { description: 'build, update and list IP intelligence dataset snapshots' } },
    load: async () => (await import('./dataset.ts')).registerDatasetCommands,
  },
  {
    commands: {
      lookup: {
        term: 'lookup [options] [ips...]',
        description:
          'look up addresses in the newest local snapshot (arguments, --file PATH, or --file - for stdin)',
      },
    },
    load: async () => (await import('./lookup.ts')).registerLookupCommand,
  },
  {
    commands: {
      summarize: {
        term: 'summarize [options] [ips...]',
        description: 'count a list of addresses by ASN, country, connection type, flag and threat level',
      },
    },
    load: async () => (await import('./summarize.ts')).registerSummarizeCommand,
  },
  {
    commands: {
      scan: {
        term: 'scan [options] <ip>',
        description:
          'scan one address now (NETREP_SCAN_* settings): page title, Server header, TLS organisation',
      },
    },
    load: async () => (await import('./scan.ts')).registerScanCommand,
  },
  {
    commands: { domain: { description: 'email authentication checks of a domain' } },
    load: async () => (await import('./domain.ts')).registerDomainCommands,
  },
  {
    commands: { headers: { description: 'mail header analysis' } },
    load: async () => (await import('./headers.ts')).registerHeadersCommands,
  },
  {
    commands: { feeds: { description: 'threat feed snapshots' } },
    load: async () => (await import('./feeds.ts')).registerFeedsCommands,
  },
  {
    commands: { audit: { description: 'reproducible DNSBL and FCrDNS audit jobs' } },
    load: async () => (await import('./audit.ts')).registerAuditCommands,
  },
  {
    commands: { reports: { description: "mail operators' reports (DMARC, TLS-RPT)" } },
    load: async () => (await import('./reports.ts')).registerReportsCommands,
  },
];

/** The command a command line runs: its first operand (`netrep help keys`: the one after help). */
function commandNamed(argv: readonly string[]): string | undefined {
  const operands = argv.slice(2).filter((a) => !a.startsWith('-'));
  return operands[0] === 'help' ? operands[1] : operands[0];
}

/**
 * The program for one command line: the group of the command it names registered in full,
 * every other group as entries with their term and description only. `loaded`: the groups to
 * register in full anyway (tests: all of them).
 */
export async function createProgram(
  argv: readonly string[],
  loaded: readonly CommandGroup[] = [],
): Promise<Command> {
  const name = commandNamed(argv);
  const program = new Command('netrep')
    .description(
      'IP intelligence, DNS blocklist, sending-IP reputation, email authentication and threat feeds',
    )
    .version('0.1.0')
    // `--version` after a subcommand is that command's own (`dataset verify --version N`).
    .enablePositionalOptions()
    .showHelpAfterError();
  const terms = new Map<Command, string>();
  for (const group of COMMAND_GROUPS) {
    if (loaded.includes(group) || (name !== undefined && name in group.commands)) {
      (await group.load())(program);
      continue;
    }
    for (const [command, entry] of Object.entries(group.commands)) {
      const stub = program.command(command).description(entry.description);
      if (entry.term) terms.set(stub, entry.term);
    }
  }
  program
    .command('config')
    .description('print each NETREP_* setting in effect (environment, .env or default); secrets hidden')
    .option('--defaults', 'print the table of settings and their defaults (docs/configuration.md) instead')
    .action(async (opts: { defaults?: boolean }) => {
      const { printSettings } = await import('./config-command.ts');
      printSettings(opts.defaults === true);
    });
  const help = new Help();
  program.configureHelp({ subcommandTerm: (cmd) => terms.get(cmd) ?? help.subcommandTerm(cmd) });
  return program;
}

export async function runCli(argv: string[]): Promise<void> {
  await (await createProgram(argv)).parseAsync(argv);
}
