/**
 * Import in every test that touches DNS. From then on, a query through node:dns to any
 * resolver that is not on 127.0.0.1 / ::1 (the system's resolvers included) throws, so a
 * test can never leak a lookup off the machine or depend on the internet.
 */
import dns from 'node:dns';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[?::1\]?)(:\d+)?$/;

function assertLoopback(servers: string[], what: string): void {
  const outside = servers.filter((s) => !LOOPBACK.test(s));
  if (servers.length === 0 || outside.length > 0) {
    throw new Error(
      `dns-guard: a test queried ${what} through non-loopback resolvers [${servers.join(', ')}]; ` +
        'serve the names from test/helpers/dns-zone-server.ts instead',
    );
  }
}

const METHODS = [
  'resolve',
  'resolve4',
  'resolve6',
  'resolveAny',
  'resolveCaa',
  'resolveCname',
  'resolveMx',
  'resolveNaptr',
  'resolveNs',
  'resolvePtr',
  'resolveSoa',
  'resolveSrv',
  'resolveTxt',
  'reverse',
] as const;

type Guarded = Record<
  string,
  ((this: { getServers(): string[] }, ...args: unknown[]) => unknown) | undefined
>;

function guardPrototype(proto: Guarded, flag: Guarded): void {
  if (flag['__netrepDnsGuard']) return;
  for (const method of METHODS) {
    const original = proto[method];
    if (typeof original !== 'function') continue;
    proto[method] = function guarded(this: { getServers(): string[] }, ...args: unknown[]) {
      assertLoopback(this.getServers(), `${String(args[0])} (${method})`);
      return original.apply(this, args);
    };
  }
  flag['__netrepDnsGuard'] = () => true;
}

guardPrototype(
  dns.promises.Resolver.prototype as unknown as Guarded,
  dns.promises.Resolver as unknown as Guarded,
);
guardPrototype(dns.Resolver.prototype as unknown as Guarded, dns.Resolver as unknown as Guarded);

// Module-level functions use the default resolver, i.e. the system's.
for (const target of [dns as unknown as Guarded, dns.promises as unknown as Guarded]) {
  for (const method of METHODS) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    try {
      target[method] = (...args: unknown[]) => {
        assertLoopback(dns.getServers(), `${String(args[0])} (dns.${method})`);
        return (original as (...a: unknown[]) => unknown)(...args);
      };
    } catch {
      // Some builds expose read-only bindings; the Resolver guard still covers the product client.
    }
  }
}

/** True once the guard is installed (tests assert it so an import cannot be dropped silently). */
export const dnsGuardInstalled = true;
