/**
 * A smoke run of the real binary on the Node running the tests (.ci/run runs it under every line
 * package.json's `engines` names): a snapshot built from the fixture packages, `netrep serve`,
 * a key made with the CLI, keyed lookups on one keep-alive connection and /readyz. On a line the
 * socket front is tested on (NETREP_HTTP_FRONT=auto) the lookups come through it; with `off`,
 * through Node's own HTTP path, with the same answers.
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { buildDataset } from '../../src/dataset/index.ts';
import { frontEnabled } from '../../src/http/fast-front.ts';
import { datasetFixture } from '../helpers/intel-app.ts';
import { type NetrepProcess, runNetrep, startNetrep } from '../helpers/process.ts';
import { tempDir } from '../helpers/stores.ts';

describe(`the binary on Node ${process.versions.node}`, () => {
  const dir = tempDir('netrep-smoke-');
  const servers: NetrepProcess[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each(['auto', 'off'])(
    'NETREP_HTTP_FRONT=%s: serves keyed lookups and is ready',
    { timeout: 120_000 },
    async (front) => {
      if (!fs.existsSync(`${dir}/datasets`))
        await buildDataset({ dataDir: dir, clock: systemClock, npmDir: datasetFixture('npm-a') });
      const env = {
        NETREP_DATA_DIR: dir,
        NETREP_LISTEN: '127.0.0.1:0',
        NETREP_DNSBL_LISTEN: '',
        NETREP_HTTP_FRONT: front,
      };
      const server = await startNetrep(env);
      servers.push(server);
      const made = runNetrep(
        ['keys', 'create', '--name', `smoke-${front}`, '--tier', 'free', '--permissions', 'ip:read'],
        env,
      );
      expect(made.status, made.stderr).toBe(0);
      const key = made.stdout.trim().split('\n').at(-1) ?? '';
      for (const ip of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888']) {
        const res = await fetch(`${server.url}/v1/ip/${ip}`, { headers: { 'x-api-key': key } });
        expect([200, 404], ip).toContain(res.status);
        expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
        const body = (await res.json()) as { meta: { dataset_version: number } };
        expect(body.meta.dataset_version).toBe(1);
      }
      const google = (await (
        await fetch(`${server.url}/v1/ip/8.8.8.8`, { headers: { 'x-api-key': key } })
      ).json()) as {
        data: { asn: number };
      };
      expect(google.data.asn).toBe(15169);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      const viaSocket = Number(
        /^netrep_http_fast_path_total\{transport="socket"\} (\d+)$/m.exec(metrics)?.[1] ?? 0,
      );
      const expected = frontEnabled(front);
      process.stdout.write(
        `[node-smoke] node ${process.versions.node}, NETREP_HTTP_FRONT=${front}: socket front ${expected ? 'on' : 'off'}\n`,
      );
      if (expected) expect(viaSocket).toBeGreaterThan(0);
      else expect(viaSocket).toBe(0);
      await server.stop();
    },
  );
});
