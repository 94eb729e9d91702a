import { afterAll, describe, expect, it } from 'vitest';
import { nginxNetworks } from '../../../test/helpers/feeds-parse.ts';
import {
  encodeToString,
  feedContext,
  realCanonicalRows,
  runTool,
  tempDir,
  writeText,
} from '../../../test/helpers/feeds-tools.ts';
import { FEED_NAMES } from '../types.ts';

const tmp = tempDir('nginx');
afterAll(tmp.cleanup);

/** `nginx -t` with the file included in a server block, on a private prefix (no root paths). */
function nginxTest(include: string): ReturnType<typeof runTool> {
  const conf = writeText(
    tmp.dir,
    'nginx.conf',
    `pid ${tmp.dir}/nginx.pid;\nerror_log ${tmp.dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n` +
      `  server {\n    listen 127.0.0.1:18080;\n    include ${include};\n  }\n}\n`,
  );
  return runTool('nginx', ['-t', '-q', '-p', tmp.dir, '-c', conf]);
}

describe('nginx encoder', () => {
  it.each(FEED_NAMES)(
    'nginx -t accepts the real %s feed, which denies exactly its networks',
    async (feed) => {
      const rows = await realCanonicalRows(feed);
      const text = await encodeToString('nginx', rows, feedContext(feed));
      const file = writeText(tmp.dir, `${feed}.conf`, text);
      const r = nginxTest(file);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(nginxNetworks(text)).toEqual(rows.map((c) => `${c.address}/${c.prefixLength}`));
    },
  );

  it('the nginx check is real: a broken deny line fails it', () => {
    const file = writeText(tmp.dir, 'broken.conf', 'deny 10.0.0.0/8;\ndeny 10.0.0.0/33;\n');
    const r = nginxTest(file);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/invalid parameter "10\.0\.0\.0\/33"/);
  });

  it('an empty feed is comments only and still loads', async () => {
    const text = await encodeToString('nginx', [], feedContext('trap_confirmed'));
    expect(text.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual([]);
    expect(nginxTest(writeText(tmp.dir, 'empty.conf', text)).status).toBe(0);
  });
});
