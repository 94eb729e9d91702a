/**
 * Splits a pasted header block (or a whole message, whose body is ignored) into fields.
 * Tolerant on purpose: CRLF, LF or CR line ends; folded lines; a leading mbox "From " line;
 * lines that lost their fold indentation (a paste from a web page) are joined to the field above.
 */
export interface HeaderField {
  /** Lower-case field name, e.g. `received`. */
  name: string;
  /** Unfolded value: whitespace runs collapsed to one space, control characters removed. */
  value: string;
}

// Field name: printable US-ASCII except colon (RFC 5322 §2.2). Bounded, anchored: linear.
const FIELD_LINE = /^([\x21-\x39\x3b-\x7e]{1,76})[ \t]*:/;
const WHITESPACE_RUN = /\s+/g;

export function splitHeaderBlock(raw: string): HeaderField[] {
  const lines = raw.split(/\r\n|\r|\n/);
  const fields: { name: string; parts: string[] }[] = [];
  let i = 0;
  while (i < lines.length && (lines[i] as string).trim() === '') i++;
  // An mbox separator ("From user@host Tue Jan 1 ...") has no colon after its first word.
  if (i < lines.length && /^From [^:]*$/.test((lines[i] as string).slice(0, 200))) i++;
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    // The first empty line ends the header section (RFC 5322 §2.1); the body is not read.
    if (line.trim() === '') break;
    const current = fields[fields.length - 1];
    const isFold = line.startsWith(' ') || line.startsWith('\t');
    const match = isFold ? null : FIELD_LINE.exec(line);
    if (match) {
      fields.push({ name: (match[1] as string).toLowerCase(), parts: [line.slice(match[0].length)] });
    } else if (current) {
      current.parts.push(line);
    }
  }
  return fields.map((f) => ({
    name: f.name,
    value: withoutControls(f.parts.join(' ')).replace(WHITESPACE_RUN, ' ').trim(),
  }));
}

/** C0 controls and DEL become spaces; 8-bit junk stays as text (it is already decoded to a string). */
function withoutControls(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) {
      out += text.slice(from, i) + ' ';
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/** All values of one field, top-most first. */
export function fieldValues(fields: readonly HeaderField[], name: string): string[] {
  const out: string[] = [];
  for (const f of fields) if (f.name === name) out.push(f.value);
  return out;
}
