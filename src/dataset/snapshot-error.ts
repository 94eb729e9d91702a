/** A snapshot that cannot be served: which one and why (named in the log, /readyz, the CLI). */
export class SnapshotError extends Error {
  constructor(
    readonly dir: string,
    readonly version: number | null,
    readonly reason: string,
  ) {
    super(`dataset ${version === null ? dir : `v${version}`} is broken: ${reason}`);
    this.name = 'SnapshotError';
  }
}
