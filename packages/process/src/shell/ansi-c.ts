/** Decoding of bash's ANSI-C quoting, `$'...'`. */

// biome-ignore format: an escape table
const SIMPLE: Readonly<Record<string, string>> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/**
 * Decode `$'...'` text starting at `start` (just past `$'`) up to the closing
 * quote. `end` is just past the closing quote; `terminated` is false when the
 * text ended first.
 */
export function decodeAnsiC(src: string, start: number): { value: string; end: number; terminated: boolean } {
  let i = start;
  let out = '';
  while (i < src.length && src[i] !== "'") {
    const c = src[i]!;
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = src[i + 1] ?? '';
    i += 2;
    const hex = (max: number): number => {
      const m = /^[0-9a-fA-F]+/.exec(src.slice(i, i + max));
      i += m ? m[0].length : 0;
      return m ? Number.parseInt(m[0], 16) : Number.NaN;
    };
    if (e in SIMPLE) out += SIMPLE[e];
    else if (/[0-7]/.test(e)) {
      const m = /^[0-7]{0,2}/.exec(src.slice(i, i + 2))![0];
      i += m.length;
      out += String.fromCharCode(Number.parseInt(e + m, 8) & 0xff);
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const code = hex(e === 'x' ? 2 : e === 'u' ? 4 : 8);
      out += Number.isNaN(code) || code > 0x10ffff ? `\\${e}` : String.fromCodePoint(code);
    } else if (e === 'c') {
      out += String.fromCharCode((src[i++] ?? '@').charCodeAt(0) & 0x1f);
    } else out += `\\${e}`;
  }
  const terminated = i < src.length;
  return { value: out, end: i + 1, terminated };
}
