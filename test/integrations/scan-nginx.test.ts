/**
 * The service scan against a real nginx (issue #34 "Done when"): nginx-light on 127.0.0.1, run as
 * a non-daemon with a temp prefix, serving a page with a `<title>` over HTTP and HTTPS (a
 * certificate naming an organisation, made at test time with openssl). Through the real app: the
 * lookup queues, the worker scans, the next lookup answers nginx's Server header, the page title
 * and the certificate's organisation.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/dnsbl-tools.ts';
import { createIntelTestApp, type IntelTestApp } from '../helpers/intel-app.ts';
import { ALL_BUT_LOOPBACK, makeCerts, type TestCerts } from '../helpers/scan-servers.ts';
import { toolsAvailable } from './required-tool.ts';

const available = toolsAvailable('scan nginx', { nginx: 'nginx-light', openssl: 'openssl' });

function nginxConf(dir: string, certs: TestCerts, http: number, https: number): string {
  return `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 64; }
http {
  access_log off;
  server_tokens on;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  default_type text/html;
  server {
    listen 127.0.0.1:${http};
    listen 127.0.0.1:${https} ssl;
    ssl_certificate ${certs.dir}/org.pem;
    ssl_certificate_key ${certs.dir}/org.key;
    root ${dir}/www;
  }
}
`;
}

const up = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

describe.skipIf(!available)('service scan of a real nginx', () => {
  let dir: string;
  let nginx: ChildProcess | null = null;
  let t: IntelTestApp;

  beforeAll(async () => {
    const certs = makeCerts();
    dir = fs.mkdtempSync(path.join(certs.dir, 'nginx-'));
    fs.mkdirSync(path.join(dir, 'www'));
    fs.writeFileSync(
      path.join(dir, 'www/index.html'),
      '<!doctype html><html><head><meta charset="utf-8"><title>Scan target &#8211; nginx</title></head><body>hi</body></html>',
    );
    const [http, https] = [await freePort(), await freePort()];
    const conf = path.join(dir, 'nginx.conf');
    fs.writeFileSync(conf, nginxConf(dir, certs, http, https));
    const check = spawnSync('nginx', ['-t', '-p', dir, '-e', `${dir}/error.log`, '-c', conf], {
      encoding: 'utf8',
    });
    expect(check.stderr).toMatch(/test is successful/);
    nginx = spawn('nginx', ['-p', dir, '-e', `${dir}/error.log`, '-c', conf], { stdio: 'ignore' });
    for (let i = 0; !(await up(http)) || !(await up(https)); i++) {
      if (i > 100) throw new Error(`nginx did not listen: ${fs.readFileSync(`${dir}/error.log`, 'utf8')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t = await createIntelTestApp('sqlite', {
      config: {
        workers: false,
        scan: true,
        scanAllowLoopback: true,
        scanExclude: [...ALL_BUT_LOOPBACK],
        scanPorts: [`${https}/tls`, `${http}/http`],
        scanContact: 'mailto:ops@example.test',
      },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    nginx?.kill('SIGTERM');
  });

  it('reads nginx Server header, the page title and the certificate organisation', async () => {
    const lookup = async () =>
      JSON.parse(
        (
          await t.app.http.inject({
            method: 'GET',
            url: '/v1/public/ip/127.0.0.1',
            remoteAddress: '198.51.100.9',
          })
        ).body,
      ) as {
        data: Record<string, unknown> & { scan: { status: string } };
      };
    expect((await lookup()).data.scan.status).toBe('pending');
    await t.app.services.scan.settled(); // the lookup answered before its queue write ended
    expect(await t.app.scanWorker.runOnce()).toBe(1);
    t.clock.advance(3000);
    const { data } = await lookup();
    expect(data.scan.status).toBe('done');
    expect(data.tls_organization).toBe('Example Hosting Ltd');
    expect(data.service_server).toMatch(/^nginx\/\d+\.\d+/);
    expect(data.service_title).toBe('Scan target – nginx');
  });
});
