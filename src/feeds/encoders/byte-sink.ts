/**
 * Encoded bytes appended in place (issue #35 item 2). Encoders write a row's pieces straight
 * into one growing buffer instead of joining strings that must later be flattened and encoded:
 * a network is copied from its record's bytes, a prefix length or an ASN written as digits; text that
 * may not be ASCII (kind, source, brand) is encoded once per distinct value (`utf8Memo`).
 */
/**
 * `buf` when it has room for `n` more bytes after `pos`, else a buffer at least twice as large
 * holding its first `pos` bytes (shared by ByteSink and row-record.ts's RecordRun).
 */
export function withRoom(buf: Buffer, pos: number, n: number): Buffer {
  if (pos + n <= buf.length) return buf;
  const next = Buffer.allocUnsafe(Math.max(buf.length * 2, pos + n));
  buf.copy(next, 0, 0, pos);
  return next;
}

export class ByteSink {
  buf: Buffer;
  /** Bytes written so far. */
  pos = 0;

  constructor(size = 1 << 16) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Room for `n` more bytes. */
  private room(n: number): void {
    this.buf = withRoom(this.buf, this.pos, n);
  }

  byte(b: number): void {
    if (this.pos >= this.buf.length) this.room(1);
    this.buf[this.pos++] = b;
  }

  /** `src[start, end)` (a network's text in a record, record-cursor.ts). */
  range(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    if (this.pos + n > this.buf.length) this.room(n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = start; i < end; i++) buf[p++] = src[i] as number;
    this.pos = p;
  }

  bytes(b: Uint8Array): void {
    const n = b.length;
    if (this.pos + n > this.buf.length) this.room(n);
    if (n > 32) {
      this.buf.set(b, this.pos);
      this.pos += n;
      return;
    }
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) buf[p++] = b[i] as number;
    this.pos = p;
  }

  /** Any string, UTF-8 (for headers, footers and other text written once per file). */
  text(s: string): void {
    this.room(Buffer.byteLength(s));
    this.pos += this.buf.write(s, this.pos);
  }

  /** A non-negative integer in decimal, as String(n) writes it. */
  int(n: number): void {
    if (n < 10) {
      this.byte(48 + n);
      return;
    }
    if (n < 1000) {
      // A prefix length: two or three digits without the general loop.
      if (this.pos + 3 > this.buf.length) this.room(3);
      const buf = this.buf;
      if (n >= 100) buf[this.pos++] = 48 + Math.floor(n / 100);
      buf[this.pos++] = 48 + (Math.floor(n / 10) % 10);
      buf[this.pos++] = 48 + (n % 10);
      return;
    }
    let digits = 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
    if (this.pos + digits > this.buf.length) this.room(digits);
    const buf = this.buf;
    let x = n;
    for (let p = this.pos + digits - 1; p >= this.pos; p--) {
      buf[p] = 48 + (x % 10);
      x = Math.floor(x / 10);
    }
    this.pos += digits;
  }

  /** The bytes written as text; the sink starts again empty on the same buffer. */
  takeText(): string {
    const out = this.buf.toString('utf8', 0, this.pos);
    this.pos = 0;
    return out;
  }
}

/**
 * `render(value)` as UTF-8 bytes, encoded once for a run of equal values (rows of one source
 * share their kind, source and dates; sharedFieldsMemo hands out the same string for them): the
 * writer copies bytes instead of encoding text per row.
 */
export function utf8Memo(render: (value: string) => string = (v) => v): (value: string) => Buffer {
  let last: string | undefined;
  let out = Buffer.alloc(0);
  return (value) => {
    if (value !== last) {
      last = value;
      out = Buffer.from(render(value), 'utf8');
    }
    return out;
  };
}
