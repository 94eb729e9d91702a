/**
 * The dependency rule of STYLE.md, executable: `npm run lint` (and so `npm test`) fails on any
 * violation. test/architecture.test.ts plants violations in a scratch tree to show each rule bites.
 *
 * Layers: core/ (knows nothing of netrep) ← store/ ← domain folders ← outer folders (http/,
 * dnsbl/, worker/, cli/, web/) ← app.ts, the composition root, which alone sees everything.
 */
const DOMAINS =
  'accounts|audit|blocklist|dataset|emailauth|feeds|headers|intel|limits|listcheck|reputation|scan|telemetry|warmup|webhooks';
const OUTER = 'http|dnsbl|worker|cli|web';
const TEST = '(\\.test\\.ts$|^test/)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-imports-nothing-of-ours',
      comment: 'core/ knows nothing of netrep: errors, clock, IP parsing, the DNS client.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'store-imports-only-core',
      comment: 'store/ is Kysely, migrations and dialect branches over core/ types.',
      severity: 'error',
      from: { path: '^src/store/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/(core|store)/' },
    },
    {
      name: 'domains-never-import-outward',
      comment:
        'Domain folders are called by http/, dnsbl/, worker/, cli/, web/ and wired by app.ts, never the reverse; ' +
        'a signal that would point upward travels through a function app.ts passes in.',
      severity: 'error',
      from: { path: `^src/(${DOMAINS})/`, pathNot: TEST },
      to: { path: `^src/((${OUTER})/|(app|main|config)\\.ts$)` },
    },
    {
      name: 'domains-through-their-index',
      comment:
        'Another folder reaches a domain only through its index.ts (its public functions and types), or its schemas.ts (response schemas, for http/).',
      severity: 'error',
      from: { path: '^src/([^/]+)/', pathNot: TEST },
      to: { path: `^src/(${DOMAINS})/`, pathNot: ['^src/$1/', `^src/(${DOMAINS})/(index|schemas)\\.ts$`] },
    },
    {
      name: 'root-files-through-domain-index',
      comment: 'The same for the files at the top of src/, but app.ts (the composition root).',
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$', pathNot: [TEST, '^src/app\\.ts$'] },
      to: { path: `^src/(${DOMAINS})/`, pathNot: `^src/(${DOMAINS})/index\\.ts$` },
    },
    {
      name: 'only-cli-starts-the-app',
      comment: 'app.ts composes everything; only the process entry (cli/, main.ts) calls it.',
      severity: 'error',
      from: { path: '^src/', pathNot: [TEST, '^src/cli/', '^src/main\\.ts$'] },
      to: { path: '^src/app\\.ts$' },
    },
    {
      name: 'route-files-stand-alone',
      comment:
        'A route file imports no other route file (shared helpers live in http/ beside server.ts); ' +
        'routes/index.ts lists them all and only http/server.ts registers that list.',
      severity: 'error',
      from: { path: '^src/(?!http/routes/index\\.ts$|http/server\\.ts$)', pathNot: TEST },
      to: { path: '^src/http/routes/(?!index\\.ts$)' },
    },
    {
      name: 'routes-registered-by-the-server',
      comment: 'Only http/server.ts registers the route list (app.ts hands over services, not routes).',
      severity: 'error',
      from: { path: '^src/', pathNot: [TEST, '^src/http/server\\.ts$'] },
      to: { path: '^src/http/routes/index\\.ts$' },
    },
    {
      name: 'no-circular',
      comment: 'No cycles between modules.',
      severity: 'error',
      from: { path: '^src/', pathNot: TEST },
      to: { circular: true },
    },
    {
      name: 'fastify-only-in-http',
      comment: 'Fastify and its plugins live in http/ (web/ pages are plain functions of strings).',
      severity: 'error',
      from: { path: '^src/', pathNot: [TEST, '^src/http/'] },
      to: { path: 'node_modules/(fastify|@fastify/|find-my-way)' },
    },
    {
      name: 'sql-only-in-store',
      comment: 'Kysely and the database drivers only in store/ and a domain module\'s store.ts (or store-*.ts, its parts).',
      severity: 'error',
      from: { path: '^src/', pathNot: [TEST, '^src/store/', '^src/[^/]+/store\\.ts$', '^src/[^/]+/store-[a-z-]+\\.ts$'] },
      to: { path: 'node_modules/(kysely|pg|better-sqlite3)/' },
    },
    {
      name: 'dns-packet-only-in-dnsbl',
      comment:
        'DNS wire format belongs to the DNSBL server and the test DNS server. One more reader by design: ' +
        'core/dns/raw-query.ts, the DNS client\'s raw UDP fallback for names c-ares refuses to send.',
      severity: 'error',
      from: { path: '^src/', pathNot: [TEST, '^src/dnsbl/', '^src/core/dns/raw-query\\.ts$'] },
      to: { path: 'node_modules/dns-packet/' },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API for dependency-cruiser: @swc/core parses the sources.
    parser: 'swc',
    // Type-only imports count: a type is a dependency on the module that owns it.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)fixtures/' },
    moduleSystems: ['es6'],
  },
};
