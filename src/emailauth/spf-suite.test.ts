/**
 * The official RFC 7208 test suite (openspf.org, release 2014.04 + errata) through checkHost,
 * each scenario's zonedata served by a real DNS server on 127.0.0.1. Names outside hostname
 * syntax ("foo:bar/baz.example.com", spaces from macros) go through core/dns's raw fallback.
 */
import fs from 'node:fs';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import {
  startZoneServer,
  type Zone,
  type ZoneRecord,
  type ZoneServer,
} from '../../test/helpers/dns-zone-server.ts';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';
import { createManualClock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { checkHost } from './spf-check.ts';

interface SuiteCase {
  helo: string;
  host: string;
  mailfrom: string;
  result: string | string[];
  explanation?: string;
}
interface Scenario {
  description: string;
  tests: Record<string, SuiteCase>;
  zonedata: Record<string, Array<string | Record<string, unknown>>>;
}

/** The record of one zonedata entry (`{TYPE: value}`), or null for NONE (absent). */
function suiteRecord(type: string | undefined, value: unknown): ZoneRecord | null {
  if (value === 'NONE') return null;
  switch (type) {
    case 'SPF':
    case 'TXT':
      return { type: 'TXT', data: value as string | string[] };
    case 'A':
    case 'AAAA':
    case 'PTR':
    case 'CNAME':
      return { type, data: String(value) };
    case 'MX': {
      const [preference, exchange] = value as [number, string];
      return { type: 'MX', data: { preference, exchange } };
    }
    default:
      throw new Error(`unknown record type ${type}`);
  }
}

/** The records of one name: SPF entries (as TXT, after the others) unless the name lists TXT itself. */
function suiteRecords(entries: Array<string | Record<string, unknown>>): ZoneRecord[] {
  const records: ZoneRecord[] = [];
  const generated: ZoneRecord[] = [];
  const hasTxt = entries.some((e) => typeof e === 'object' && 'TXT' in e);
  for (const entry of entries) {
    if (entry === 'TIMEOUT') {
      records.push({ type: 'TIMEOUT' });
      continue;
    }
    if (typeof entry !== 'object') throw new Error(`unknown zone entry ${String(entry)}`);
    const [type, value] = Object.entries(entry)[0] ?? [];
    const record = suiteRecord(type, value);
    if (record === null) continue;
    if (type !== 'SPF') records.push(record);
    else if (!hasTxt) generated.push(record);
  }
  return [...records, ...generated];
}

/** Suite convention: SPF entries double as TXT unless the name lists TXT itself; NONE means absent. */
function suiteZone(data: Scenario['zonedata']): Zone {
  const zone: Zone = {};
  for (const [name, entries] of Object.entries(data ?? {})) zone[name] = suiteRecords(entries);
  return zone;
}

/** One case through checkHost: null when it passes, else what was expected and what came. */
async function runCase(
  scenario: Scenario,
  name: string,
  test: SuiteCase,
  options: Parameters<typeof checkHost>[3],
): Promise<string | null> {
  const sender = test.mailfrom === '' ? `postmaster@${test.helo}` : test.mailfrom;
  const domain = test.mailfrom === '' ? test.helo : test.mailfrom.slice(test.mailfrom.lastIndexOf('@') + 1);
  const got = await checkHost(test.host, domain, sender, { ...options, helo: test.helo });
  const allowed = Array.isArray(test.result) ? test.result : [test.result];
  const resultOk = allowed.includes(got.result);
  const expOk =
    test.explanation === undefined || test.explanation === 'DEFAULT' || got.explanation === test.explanation;
  if (resultOk && expOk) return null;
  return `${scenario.description} / ${name}: expected ${allowed.join('|')}${test.explanation ? ` "${test.explanation}"` : ''}, got ${got.result} "${got.explanation ?? ''}" (${got.reason})`;
}

const scenarios = loadAll(
  fs.readFileSync(sharedDataPath('email/spf/rfc7208-tests.yml'), 'utf8'),
) as Scenario[];

let server: ZoneServer;
beforeAll(async () => {
  server = await startZoneServer({});
});
afterAll(async () => {
  await server.close();
});

describe('RFC 7208 test suite through checkHost', () => {
  it('passes every case, names outside hostname syntax included', async () => {
    const clock = createManualClock('2014-05-01T00:00:00Z');
    let total = 0;
    const failures: string[] = [];
    const details: string[] = [];
    for (const scenario of scenarios) {
      server.setZone(suiteZone(scenario.zonedata));
      const dns = createDnsClient({ servers: server.servers, timeoutMs: 150, tries: 1 });
      for (const [name, test] of Object.entries(scenario.tests)) {
        total += 1;
        const detail = await runCase(scenario, name, test, { dns, helo: test.helo, clock });
        if (detail !== null) {
          failures.push(name);
          details.push(detail);
        }
      }
    }
    const passed = total - failures.length;
    process.stdout.write(
      `\nRFC 7208 test suite: ${passed}/${total} cases pass (${((passed / total) * 100).toFixed(1)} %)\n`,
    );
    if (details.length > 0) process.stdout.write(`${details.join('\n')}\n`);
    expect(total).toBeGreaterThanOrEqual(200);
    expect(failures).toEqual([]);
    expect(passed).toBe(total);
  }, 60_000);
});
