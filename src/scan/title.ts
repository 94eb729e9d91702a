/**
 * The page title of an HTML body: no HTML parser is a dependency, so a bounded regex over the
 * first 64 KiB (all the scanner reads) finds the first `<title>`; an unclosed one runs to the end
 * of what was read. Character references are decoded (the five XML ones, `&nbsp;` and numeric
 * ones), whitespace collapsed, and the result cut to TITLE_MAX characters.
 */
export const TITLE_MAX = 256;

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/** A code point a title may carry: not a control character, a surrogate or past U+10FFFF. */
function printable(code: number): boolean {
  if (!Number.isInteger(code) || code > 0x10ffff || code < 0x20) return false;
  if (code >= 0x7f && code < 0xa0) return false;
  return code < 0xd800 || code > 0xdfff;
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return printable(code) ? String.fromCodePoint(code) : '';
  });
}

const TITLE = /<title\b[^>]{0,200}>([^<]{0,65536})/i;

/** The first `<title>` of `html`, decoded and trimmed; null when there is none or it is empty. */
export function titleOf(html: string): string | null {
  const m = TITLE.exec(html);
  if (!m) return null;
  const text = decodeEntities(m[1] ?? '')
    .replace(/\p{Cc}/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return null;
  return [...text].slice(0, TITLE_MAX).join('');
}
