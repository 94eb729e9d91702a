/**
 * Settings for CLI commands run in process (cli.ts): they read process.env as the binary does.
 * A file that sets some restores them when it ends, so files sharing a worker process
 * (vitest `isolate: false`) do not see each other's data dirs.
 */

/** Sets `vars` in process.env; returns the function that puts back what was there before. */
export function setProcessEnv(vars: Record<string, string>): () => void {
  const before = Object.keys(vars).map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, vars);
  return () => {
    for (const [k, v] of before) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}
