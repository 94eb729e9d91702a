/** Shared by the CLI commands: configuration, the store and the accounts service. */
import { type Accounts, createAccounts, parseQuotaOverrides } from '../accounts/index.ts';
import { type Config, loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { migrate, openStore, type Store } from '../store/index.ts';

export interface CliContext {
  config: Config;
  store: Store;
  accounts: Accounts;
  close(): Promise<void>;
}

export async function openCliContext(): Promise<CliContext> {
  const config = loadConfig();
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrate(store.db, store.dialect);
  const accounts = createAccounts({
    store,
    clock: systemClock,
    quotaOverrides: parseQuotaOverrides(config.quotaOverrides),
  });
  return {
    config,
    store,
    accounts,
    close: async () => {
      await accounts.close();
      await store.close();
    },
  };
}

/** Runs a command body with a context, closing it afterwards; errors print one line and exit 1. */
export async function withContext(fn: (ctx: CliContext) => Promise<void>): Promise<void> {
  const ctx = await openCliContext();
  try {
    await fn(ctx);
  } finally {
    await ctx.close();
  }
}

export function fail(message: string): never {
  process.stderr.write(`netrep: ${message}\n`);
  process.exit(1);
}
