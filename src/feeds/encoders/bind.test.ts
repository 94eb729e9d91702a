import { afterAll, describe, expect, it } from 'vitest';
import { bindNetworks } from '../../../test/helpers/feeds-parse.ts';
import {
  encodeToString,
  feedContext,
  realCanonicalRows,
  runTool,
  tempDir,
  writeText,
} from '../../../test/helpers/feeds-tools.ts';
import { canonicalizeRow } from '../row.ts';
import { FEED_NAMES } from '../types.ts';
import { rpzIpName } from './bind.ts';

const tmp = tempDir('bind');
afterAll(tmp.cleanup);

const at = (network: string) =>
  rpzIpName(canonicalizeRow({ network, kind: 'k', source: 's', first_seen: 'a', last_seen: 'b' }));

describe('RPZ trigger names', () => {
  it('follow the RPZ draft: prefix length, reversed address, zz for the zero run', () => {
    expect(at('192.0.2.1')).toBe('32.1.2.0.192.rpz-ip');
    expect(at('192.0.2.0/24')).toBe('24.0.2.0.192.rpz-ip');
    expect(at('2001:db8::/32')).toBe('32.zz.db8.2001.rpz-ip');
    expect(at('2001:2::3')).toBe('128.3.zz.2.2001.rpz-ip');
    expect(at('2001:db8:0:1:1:1:1:1/128')).toBe('128.1.1.1.1.1.0.db8.2001.rpz-ip');
    expect(at('::1')).toBe('128.1.zz.rpz-ip');
    expect(at('::/0')).toBe('0.zz.rpz-ip');
    expect(at('::ffff:10.1.2.3')).toBe('32.3.2.1.10.rpz-ip');
  });
});

function checkZone(file: string): ReturnType<typeof runTool> {
  // -D dumps the zone as loaded, so the test can count what BIND actually read.
  return runTool('named-checkzone', ['-k', 'fail', '-D', '-o', '-', 'rpz.netrep.test', file]);
}

describe('bind (RPZ) encoder', () => {
  it.each(FEED_NAMES)('named-checkzone loads the real %s zone with one CNAME per network', async (feed) => {
    const rows = await realCanonicalRows(feed);
    const text = await encodeToString('bind', rows, feedContext(feed));
    const r = checkZone(writeText(tmp.dir, `${feed}.zone`, text));
    expect(r.status, r.stderr + r.stdout.slice(0, 500)).toBe(0);
    expect(r.stdout).toMatch(/IN\s+SOA\s+localhost\. hostmaster\.localhost\. 2026010200 /);
    const cnames = r.stdout.split('\n').filter((l) => /\sIN\s+CNAME\s+\.$/.test(l));
    expect(cnames).toHaveLength(rows.length);
    expect(bindNetworks(text)).toEqual(rows.map((c) => `${c.address}/${c.prefixLength}`));
  });

  it('the zone check is real: two CNAMEs at one trigger fail it', async () => {
    const rows = (await realCanonicalRows('tor_exits')).slice(0, 3);
    const text = await encodeToString('bind', rows, feedContext('tor_exits'));
    const first = text.split('\n').find((l) => l.endsWith('CNAME .')) ?? '';
    const dup = `${text}${first.replace('CNAME .', 'CNAME rpz-passthru.')}\n`;
    expect(checkZone(writeText(tmp.dir, 'dup.zone', dup)).status).not.toBe(0);
  });
});
