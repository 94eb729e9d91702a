/**
 * One delivery attempt over HTTP(S) to an address the SSRF guard checked: the socket goes to
 * that address (no resolution here), the Host header and TLS name stay the URL's. 5 s for the
 * whole exchange, at most 64 KiB of the response read, redirects never followed.
 */
import http from 'node:http';
import https from 'node:https';

export const SEND_TIMEOUT_MS = 5000;
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendRequest {
  url: URL;
  /** The checked address to connect to. */
  address: string;
  family: 4 | 6;
  /** The host name as written in the URL (SNI and certificate name). */
  host: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs?: number;
}

export interface SendResult {
  /** HTTP status, null when no response arrived. */
  status: number | null;
  /** Why the attempt failed (null on a 2xx). */
  error: string | null;
}

export function sendWebhook(req: SendRequest): Promise<SendResult> {
  const timeoutMs = req.timeoutMs ?? SEND_TIMEOUT_MS;
  const secure = req.url.protocol === 'https:';
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const options: https.RequestOptions = {
      host: req.address,
      family: req.family,
      port: req.url.port === '' ? (secure ? 443 : 80) : Number(req.url.port),
      path: `${req.url.pathname}${req.url.search}`,
      method: 'POST',
      agent: false,
      headers: {
        host: req.url.host,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(req.body)),
        'user-agent': 'netrep-webhooks/1',
        ...req.headers,
      },
      ...(secure && req.host !== req.address ? { servername: req.host } : {}),
    };
    const request = (secure ? https : http).request(options, (res) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // Enough to know the receiver answered; the rest is not ours to buffer.
        if (read >= MAX_RESPONSE_BYTES) res.destroy();
      });
      const done = () => {
        const status = res.statusCode ?? null;
        if (status !== null && status >= 200 && status < 300) finish({ status, error: null });
        else if (status !== null && status >= 300 && status < 400)
          finish({ status, error: `redirect (HTTP ${status}) not followed` });
        else finish({ status, error: `HTTP ${status}` });
      };
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    const timer = setTimeout(() => {
      request.destroy();
      finish({ status: null, error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    request.on('error', (err) => finish({ status: null, error: err.message }));
    request.end(req.body);
  });
}
