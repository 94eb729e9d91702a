/** Data table: every NETREP_* setting, declared once with its type, default and description.
 * Nothing else in the code reads process.env. A `.env` file in the working directory is read when
 * present (variables already set in the environment win). The configuration reference's table
 * (docs/configuration.md) is generated from SETTINGS (`netrep config --defaults` prints it) and
 * checked by a test.
 */
import path from 'node:path';
import { readDotEnvFile } from './core/dotenv.ts';

type Kind = 'string' | 'int' | 'bool' | 'list';

interface Setting {
  env: string;
  kind: Kind;
  default: string;
  description: string;
}

export const SETTINGS = {
  listen: {
    env: 'NETREP_LISTEN',
    kind: 'string',
    default: '127.0.0.1:8080',
    description: 'HTTP listen address, host:port.',
  },
  dataDir: {
    env: 'NETREP_DATA_DIR',
    kind: 'string',
    default: './data',
    description: 'Directory for the SQLite file, dataset snapshots and feed files.',
  },
  databaseUrl: {
    env: 'NETREP_DATABASE_URL',
    kind: 'string',
    default: '',
    description: 'Unset: SQLite in the data dir. `postgres://user@host:port/db`: PostgreSQL.',
  },
  redisUrl: {
    env: 'NETREP_REDIS_URL',
    kind: 'string',
    default: '',
    description: 'Unset: rate limits in memory (per process) and SQLite. `redis://host:port`: shared limits.',
  },
  redisPrefix: {
    env: 'NETREP_REDIS_PREFIX',
    kind: 'string',
    default: 'netrep',
    description: 'Key prefix in Redis, so several deployments can share one Redis.',
  },
  limitsInstances: {
    env: 'NETREP_LIMITS_INSTANCES',
    kind: 'int',
    default: '1',
    description:
      'While Redis is away each instance allows 1/N of what a counter had left, N being the instances heard from in Redis in the last 10 minutes and at least this number.',
  },
  dnsServers: {
    env: 'NETREP_DNS_SERVERS',
    kind: 'list',
    default: '',
    description:
      'Comma-separated resolvers (`ip` or `ip:port`) for domain checks, PTR and audit probes. Unset: the system resolvers.',
  },
  dnsblListen: {
    env: 'NETREP_DNSBL_LISTEN',
    kind: 'string',
    default: '127.0.0.1:5353',
    description: 'DNSBL server address (UDP and TCP), host:port. Empty: DNSBL server off.',
  },
  dnsblZone: {
    env: 'NETREP_DNSBL_ZONE',
    kind: 'string',
    default: 'bl.netrep.test',
    description: 'The DNS blocklist zone this instance is authoritative for.',
  },
  auditZones: {
    env: 'NETREP_AUDIT_ZONES',
    kind: 'list',
    default: '',
    description: 'Extra DNSBL zones the audit worker probes (the own zone is always included).',
  },
  auditConcurrency: {
    env: 'NETREP_AUDIT_CONCURRENCY',
    kind: 'int',
    default: '16',
    description: 'Audit probes one worker runs at a time (DNSBL and FCrDNS), across its current job.',
  },
  auditLeaseSeconds: {
    env: 'NETREP_AUDIT_LEASE_SECONDS',
    kind: 'int',
    default: '30',
    description:
      'Lease of a running audit job, renewed every third of it through heartbeat_at; a job whose worker died is taken over after it expires.',
  },
  auditDnsTimeoutMs: {
    env: 'NETREP_AUDIT_DNS_TIMEOUT_MS',
    kind: 'int',
    default: '2000',
    description:
      'Per-try timeout of an audit DNS probe (two tries); a probe that gets no answer is a `timeout` observation.',
  },
  dnsblCheckZones: {
    env: 'NETREP_DNSBL_CHECK_ZONES',
    kind: 'list',
    default:
      'zen.spamhaus.org,bl.spamcop.net,b.barracudacentral.org,psbl.surriel.com,dnsbl-1.uceprotect.net,ips.backscatterer.org,bl.mailspike.net,dnsbl.dronebl.org',
    description:
      'Public DNSBL zones the blocklist page and `GET /v1/public/blocklists/ip/{ip}` ask through NETREP_DNS_SERVERS, in order; an entry `zone=https://…` gives a zone netrep does not know its delisting page. Empty: only the own zone.',
  },
  dnsblCheckTimeoutMs: {
    env: 'NETREP_DNSBL_CHECK_TIMEOUT_MS',
    kind: 'int',
    default: '1000',
    description:
      'Per-try timeout of one public DNSBL query (two tries); a list that does not answer in time is `unavailable`.',
  },
  dnsblCheckCacheSeconds: {
    env: 'NETREP_DNSBL_CHECK_CACHE_SECONDS',
    kind: 'int',
    default: '900',
    description:
      'Longest time a public DNSBL answer is kept in memory: a listing for its TTL up to this, not listed 5 minutes, refused this long, unavailable 1 minute. 0: not kept.',
  },
  trustedProxies: {
    env: 'NETREP_TRUSTED_PROXIES',
    kind: 'list',
    default: '',
    description: 'CIDRs whose X-Forwarded-For is believed for the client IP. Unset: none.',
  },
  trustedAuthservIds: {
    env: 'NETREP_TRUSTED_AUTHSERV_IDS',
    kind: 'list',
    default: '',
    description:
      'authserv-ids whose Authentication-Results the header analysis trusts (RFC 8601 §5), e.g. `mx.example.com` of your own receivers; `none`: no header. Unset: the top-most header and its authserv-id.',
  },
  publicUrl: {
    env: 'NETREP_PUBLIC_URL',
    kind: 'string',
    default: '',
    description:
      'External base URL, used in DNSBL TXT answers, feed download URLs and as the server of /openapi.json. Unset: http://NETREP_LISTEN.',
  },
  adminEmail: {
    env: 'NETREP_ADMIN_EMAIL',
    kind: 'string',
    default: '',
    description: 'Email of the administrator created on a store with no admin. Unset: admin@localhost.',
  },
  adminPassword: {
    env: 'NETREP_ADMIN_PASSWORD',
    kind: 'string',
    default: '',
    description:
      'Password of that administrator (the rules for new passwords apply: 12+ characters, not a common one; a weak one stops the start with the reason). Unset: a random one-time password printed once.',
  },
  quotaOverrides: {
    env: 'NETREP_TIER_QUOTAS',
    kind: 'string',
    default: '',
    description: 'Override daily quotas per tier, e.g. `free=10,starter=500` (testing, private deployments).',
  },
  metricsListen: {
    env: 'NETREP_METRICS_LISTEN',
    kind: 'string',
    default: '',
    description:
      'Unset: /metrics on the main port. `off`: disabled. `host:port`: a separate metrics listener (the only one `netrep worker` has).',
  },
  webhookAllowPrivate: {
    env: 'NETREP_WEBHOOK_ALLOW_PRIVATE',
    kind: 'bool',
    default: 'false',
    description: 'Allow webhook delivery to loopback and private addresses.',
  },
  datasetSources: {
    env: 'NETREP_DATASET_SOURCES',
    kind: 'string',
    default: '',
    description:
      'JSON file mapping upstream source names to URLs for `netrep dataset update`. Unset: the built-in upstream URLs.',
  },
  datasetNpmDir: {
    env: 'NETREP_DATASET_NPM_DIR',
    kind: 'string',
    default: '',
    description:
      "Folder holding the bundled data packages every build starts from, laid out as `node_modules/@ip-location-db` (`asn/`, `asn-country/`, `geo-whois-asn-country/`, `dbip-city-mmdb/`): newer copies than the installed ones, or an offline mirror. Unset: netrep's own `node_modules/@ip-location-db`.",
  },
  datasetUpdate: {
    env: 'NETREP_DATASET_UPDATE',
    kind: 'string',
    default: 'daily',
    description:
      'How often `serve` and `worker` run `dataset update` (download, build, swap in without a restart): `daily`, `off`, or an interval such as `6h`, `30m`, `90s`, `2d`. Only instances with NETREP_WORKERS on build; every instance swaps in the newest snapshot.',
  },
  datasetUpdateRetry: {
    env: 'NETREP_DATASET_UPDATE_RETRY',
    kind: 'string',
    default: '5m',
    description:
      'Wait after a failed `dataset update` before the first retry (`30s`, `5m`, `1h`); each failure in a row doubles it, up to the update interval and at most one hour. Serving goes on meanwhile.',
  },
  workers: {
    env: 'NETREP_WORKERS',
    kind: 'bool',
    default: 'true',
    description: '`netrep serve` also runs the background workers (expiry, feeds, deliveries, audit jobs).',
  },
  logLevel: {
    env: 'NETREP_LOG_LEVEL',
    kind: 'string',
    default: 'info',
    description: 'pino log level: fatal, error, warn, info, debug, trace, silent.',
  },
  httpHeadersTimeoutMs: {
    env: 'NETREP_HTTP_HEADERS_TIMEOUT_MS',
    kind: 'int',
    default: '20000',
    description:
      'A request head (request line and header fields) must arrive within this many milliseconds, else 408 and the connection is closed (slow headers).',
  },
  httpRequestTimeoutMs: {
    env: 'NETREP_HTTP_REQUEST_TIMEOUT_MS',
    kind: 'int',
    default: '30000',
    description:
      'A whole request, head and body, must arrive within this many milliseconds, else 408 and the connection is closed (a stalled body).',
  },
  httpKeepAliveTimeoutMs: {
    env: 'NETREP_HTTP_KEEP_ALIVE_TIMEOUT_MS',
    kind: 'int',
    default: '72000',
    description: 'An idle keep-alive HTTP connection is closed after this many milliseconds.',
  },
  httpFront: {
    env: 'NETREP_HTTP_FRONT',
    kind: 'string',
    default: 'auto',
    description:
      "The socket front of the keyed IP lookup (it reads the socket through Node internals): `auto` uses it on the Node lines CI tests it on (20, 22, 24, 25, 26), Node's own HTTP path elsewhere; `on` or `off` choose.",
  },
  httpMaxConnectionsPerClient: {
    env: 'NETREP_HTTP_MAX_CONNECTIONS_PER_CLIENT',
    kind: 'int',
    default: '256',
    description:
      'Open HTTP connections allowed from one client address (an IPv6 client: its /64); more are answered 429 `TOO_MANY_CONNECTIONS` and closed. NETREP_TRUSTED_PROXIES are exempt. 0: no cap.',
  },
  dnsblTcpIdleTimeoutMs: {
    env: 'NETREP_DNSBL_TCP_IDLE_TIMEOUT_MS',
    kind: 'int',
    default: '10000',
    description:
      'A DNSBL TCP connection that sends no query for this many milliseconds is closed; frames that carry no query do not count.',
  },
  dnsblTcpFrameTimeoutMs: {
    env: 'NETREP_DNSBL_TCP_FRAME_TIMEOUT_MS',
    kind: 'int',
    default: '5000',
    description: 'A started DNSBL TCP frame must be complete within this many milliseconds (slow senders).',
  },
  dnsblTcpMaxConnectionsPerClient: {
    env: 'NETREP_DNSBL_TCP_MAX_CONNECTIONS_PER_CLIENT',
    kind: 'int',
    default: '64',
    description:
      'Open DNSBL TCP connections allowed from one client address (an IPv6 client: its /64); more are closed at once. UDP is not limited. 0: no cap.',
  },
  dnsblThreadNice: {
    env: 'NETREP_DNSBL_THREAD_NICE',
    kind: 'int',
    default: '0',
    description:
      "Scheduling priority (nice, -20 to 19) of the DNSBL server's thread; 0 leaves it at the process's. Below the process's value needs CAP_SYS_NICE (root); when refused, logged and left as is. A negative value keeps DNS answers prompt while the HTTP API takes the CPU.",
  },
  dnsblThreadSliceUs: {
    env: 'NETREP_DNSBL_THREAD_SLICE_US',
    kind: 'int',
    default: '100',
    description:
      "The DNSBL threads' scheduler slice in microseconds (Linux 6.12+, set through the @netrep/dns-udp addon): a DNS thread woken by a query may preempt a busy thread (the HTTP API) instead of waiting out the default slice (1.4 ms on a 2-core machine); the kernel holds it within 100-100000. 0 leaves the kernel's. No privilege needed; a kernel that keeps no slice is logged and changes nothing.",
  },
  dnsblUdpIo: {
    env: 'NETREP_DNSBL_UDP_IO',
    kind: 'string',
    default: 'auto',
    description:
      'How the DNSBL server reads and answers UDP: `batched` through the @netrep/dns-udp addon (Linux; built by npm install with a C compiler), up to 32 queries per recvmmsg and their answers in one sendmmsg; `dgram` through node:dgram, one system call and one callback per datagram; `auto` (default) batched where the addon is built. `batched` without the addon stops the start.',
  },
  dnsblThreads: {
    env: 'NETREP_DNSBL_THREADS',
    kind: 'int',
    default: '0',
    description:
      "DNS threads answering DNSBL queries, each with its own copy of the listings (about 40 MB per million): the first binds the UDP and TCP ports; with batched UDP each other thread binds its own SO_REUSEPORT socket on the port (the kernel spreads the clients over them), on node:dgram they read the first's socket. Linux only; elsewhere one thread. 0: one per CPU core, at most 2 (docs/benchmarks.md).",
  },
  scan: {
    env: 'NETREP_SCAN',
    kind: 'bool',
    default: 'off',
    description:
      'The service scan (`service_title`, `service_server`, `tls_organization` of GET /v1/public/ip/{ip}): `on` makes this instance connect to the public addresses users look up (one TLS and one HTTP request per port, at most once per NETREP_SCAN_TTL), so it is off until an operator chooses it; off, answers say `scan.status: disabled`.',
  },
  scanPorts: {
    env: 'NETREP_SCAN_PORTS',
    kind: 'list',
    default: '443/tls,80/http',
    description:
      'Ports the scan tries, in order, one request each: `PORT/tls` or `PORT/http` (a bare 443 is TLS, any other bare port plain HTTP).',
  },
  scanContact: {
    env: 'NETREP_SCAN_CONTACT',
    kind: 'string',
    default: '',
    description:
      'Who to tell about the scan, in its User-Agent `netrep-scan/VERSION (+CONTACT)`: a URL or `mailto:` address of the operator. Required with NETREP_SCAN on (the start stops without it) and by `netrep scan`.',
  },
  scanTtl: {
    env: 'NETREP_SCAN_TTL',
    kind: 'int',
    default: '604800',
    description:
      'Seconds a scan result is kept and served before a lookup queues a new scan (7 days); one scan per address per TTL across all instances.',
  },
  scanRate: {
    env: 'NETREP_SCAN_RATE',
    kind: 'int',
    default: '30',
    description: 'Scans started per minute across all instances sharing the store; more wait in the queue.',
  },
  scanExclude: {
    env: 'NETREP_SCAN_EXCLUDE',
    kind: 'list',
    default: '',
    description:
      'CIDRs never scanned (an operator opt-out list), on top of the non-public ranges that never are.',
  },
  scanConnectTimeoutMs: {
    env: 'NETREP_SCAN_CONNECT_TIMEOUT_MS',
    kind: 'int',
    default: '3000',
    description: 'A scan probe that has no TCP connection within this many milliseconds gives that port up.',
  },
  scanDeadlineMs: {
    env: 'NETREP_SCAN_DEADLINE_MS',
    kind: 'int',
    default: '10000',
    description:
      'The whole scan of one address (every port: connect, TLS, request, the first 64 KiB of the answer) ends within this many milliseconds.',
  },
  scanAllowLoopback: {
    env: 'NETREP_SCAN_ALLOW_LOOPBACK',
    kind: 'bool',
    default: 'false',
    description:
      'Tests only: let the scan reach 127.0.0.0/8 and ::1 (their own servers). Private and other non-public ranges stay refused.',
  },
  mtaStsAllowLoopback: {
    env: 'NETREP_MTA_STS_ALLOW_LOOPBACK',
    kind: 'bool',
    default: 'false',
    description:
      "Tests only: let the domain check fetch an MTA-STS policy from 127.0.0.0/8 and ::1 (the tests' own HTTPS server). Private and other non-public ranges stay refused.",
  },
  webhookRetryBaseMs: {
    env: 'NETREP_WEBHOOK_RETRY_BASE_MS',
    kind: 'int',
    default: '60000',
    description:
      'First webhook retry wait in milliseconds; each later wait doubles (±20 % jitter). The default gives 7 attempts over about an hour.',
  },
  webhookMaxAttempts: {
    env: 'NETREP_WEBHOOK_MAX_ATTEMPTS',
    kind: 'int',
    default: '7',
    description: 'Delivery attempts per event and webhook before it is marked dead.',
  },
  reportsMaxUploadBytes: {
    env: 'NETREP_REPORTS_MAX_UPLOAD_BYTES',
    kind: 'int',
    default: '10485760',
    description:
      'Largest body POST /v1/email/reports takes (a report as sent: XML, gzip, zip, JSON or an email); larger is 413 PAYLOAD_TOO_LARGE.',
  },
  reportsMaxDecodedBytes: {
    env: 'NETREP_REPORTS_MAX_DECODED_BYTES',
    kind: 'int',
    default: '16777216',
    description:
      'Largest report after gunzip or unzip; decompression stops at this many bytes and the upload is refused 413 PAYLOAD_TOO_LARGE (a zip or gzip bomb never fills memory). Reading takes about 15 times this in memory (16 MiB of XML: some 50,000 rows).',
  },
  reportsImapUrl: {
    env: 'NETREP_REPORTS_IMAP_URL',
    kind: 'string',
    default: '',
    description:
      'Mailbox the workers read reports from: `imaps://user:password@host:993/INBOX` (TLS), `imap://…:143/INBOX` (STARTTLS, required), `imap://…?starttls=off` (plain text); user and password percent-encoded. Unset: no polling ([mailbox poller](operations.md#mailbox-poller)).',
  },
  reportsImapOwner: {
    env: 'NETREP_REPORTS_IMAP_OWNER',
    kind: 'string',
    default: '',
    description:
      'Email of the user the polled reports are stored for (as `netrep keys create --owner`). Unset: the first administrator.',
  },
  reportsImapProcessedFolder: {
    env: 'NETREP_REPORTS_IMAP_PROCESSED_FOLDER',
    kind: 'string',
    default: 'netrep/processed',
    description:
      'Folder a message moves to once its report is stored (or was stored before); levels separated by `/`; created when missing.',
  },
  reportsImapRejectedFolder: {
    env: 'NETREP_REPORTS_IMAP_REJECTED_FOLDER',
    kind: 'string',
    default: 'netrep/rejected',
    description:
      'Folder a message moves to when its report is refused (the refusal is kept, as for uploads: GET /v1/email/reports/rejected).',
  },
  reportsImapIntervalSeconds: {
    env: 'NETREP_REPORTS_IMAP_INTERVAL_SECONDS',
    kind: 'int',
    default: '300',
    description:
      'Seconds between polls. After a failed poll the wait doubles with each failure in a row, up to an hour.',
  },
  reportsImapMaxMessages: {
    env: 'NETREP_REPORTS_IMAP_MAX_MESSAGES',
    kind: 'int',
    default: '100',
    description:
      'Unseen messages read in one poll, oldest first; the rest wait for the next. A message over NETREP_REPORTS_MAX_UPLOAD_BYTES is refused unread.',
  },
  reportsImapTimeoutMs: {
    env: 'NETREP_REPORTS_IMAP_TIMEOUT_MS',
    kind: 'int',
    default: '30000',
    description:
      'Milliseconds the IMAP server has to accept the connection, greet, and answer within a command before the poll fails.',
  },
  reportsImapCaFile: {
    env: 'NETREP_REPORTS_IMAP_CA_FILE',
    kind: 'string',
    default: '',
    description:
      "PEM file of certificates to trust for the mailbox's TLS besides the system's (a private CA, or a test server's own certificate). The certificate must still name the host.",
  },
  reportsAlertPassRate: {
    env: 'NETREP_REPORTS_ALERT_PASS_RATE',
    kind: 'string',
    default: '0.9',
    description:
      "DMARC pass rate (0 to 1) under which a domain's aggregate reports of the trailing window send an `email_domain` webhook event, once per crossing (and one when it is back at or above); `off`: no pass-rate events.",
  },
  reportsAlertWindowDays: {
    env: 'NETREP_REPORTS_ALERT_WINDOW_DAYS',
    kind: 'int',
    default: '7',
    description:
      "Days of report time the pass rate is taken over, ending at the end of the domain's latest aggregate report.",
  },
  reportsAlertMaxSources: {
    env: 'NETREP_REPORTS_ALERT_MAX_SOURCES',
    kind: 'int',
    default: '20',
    description:
      'New sending sources of a report sent as one event each; more than this adds one summary event with their count instead (0: only the summary).',
  },
} as const satisfies Record<string, Setting>;

type Settings = typeof SETTINGS;
type ValueOf<K extends Kind> = K extends 'int'
  ? number
  : K extends 'bool'
    ? boolean
    : K extends 'list'
      ? string[]
      : string;
export type Config = { [K in keyof Settings]: ValueOf<Settings[K]['kind']> };

function convert(setting: Setting, raw: string): unknown {
  switch (setting.kind) {
    case 'int': {
      const n = Number(raw);
      if (!Number.isInteger(n))
        throw new Error(`${setting.env} must be an integer, got ${JSON.stringify(raw)}`);
      return n;
    }
    case 'bool': {
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
      throw new Error(`${setting.env} must be true or false, got ${JSON.stringify(raw)}`);
    }
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return raw;
  }
}

/**
 * Reads the configuration from an environment (default: process.env plus `.env`).
 * `overrides` win over both; tests pass their settings that way.
 */
export function loadConfig(
  overrides: Partial<Config> = {},
  env: Record<string, string | undefined> = readEnvironment(),
): Config {
  const config: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting][]) {
    const raw = env[setting.env];
    config[key] = convert(setting, raw ?? setting.default);
  }
  return { ...(config as Config), ...overrides };
}

function readEnvironment(): Record<string, string | undefined> {
  return { ...readDotEnvFile(path.resolve('.env')), ...process.env };
}

/** The table of settings in docs/configuration.md. */
export function settingsTable(): string {
  const rows = (Object.values(SETTINGS) as Setting[]).map(
    (s) => `| \`${s.env}\` | ${s.default === '' ? '(unset)' : `\`${s.default}\``} | ${s.description} |`,
  );
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

export interface SettingInEffect {
  env: string;
  /** As the service reads it (lists joined with commas); secrets masked; '' when unset. */
  value: string;
  source: 'environment' | '.env' | 'default';
}

const SECRET_SETTINGS = new Set(['NETREP_ADMIN_PASSWORD']);

/** A password inside a URL (postgres://user:secret@host) is replaced by ***. */
function maskUrlPassword(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, '$1***@');
}

/**
 * `netrep config`: every setting's value in effect, with where it came from (the environment
 * wins over `.env`, which wins over the default). Throws on a value loadConfig would refuse.
 */
export function settingsInEffect(
  env: Record<string, string | undefined> = process.env,
  dotEnv: Record<string, string> = readDotEnvFile(path.resolve('.env')),
): SettingInEffect[] {
  const config = loadConfig({}, { ...dotEnv, ...env }) as Record<string, unknown>;
  return (Object.entries(SETTINGS) as [string, Setting][]).map(([key, s]) => {
    const source =
      env[s.env] !== undefined ? 'environment' : dotEnv[s.env] !== undefined ? '.env' : 'default';
    const v = config[key];
    const text = Array.isArray(v) ? v.join(',') : String(v);
    const value = SECRET_SETTINGS.has(s.env) && text !== '' ? '(set, hidden)' : maskUrlPassword(text);
    return { env: s.env, value, source };
  });
}
