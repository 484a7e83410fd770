/**
 * `urlencoded({ extended: false })`: flat `key=value` pairs, parsed as
 * body-parser 2 parses them (qs with depth 0) so that moving off
 * body-parser changes no `req.body`: `+` is a space, percent-escapes are
 * decoded (an invalid one is kept as written), a repeated key collects its
 * values into an array, an empty key is dropped, brackets stay part of the
 * key except one pair wrapping the whole key (`[a]=1` is `a`, `[0]=x` is
 * index 0), and `%5B`/`%5D` count as brackets. iso-8859-1 bodies decode
 * their escapes as Latin-1 bytes.
 */

type FormValue = string | string[];

function decode(text: string, latin1: boolean): string {
  const spaced = text.replace(/\+/g, ' ');
  if (latin1) return spaced.replace(/%[0-9a-f]{2}/gi, (escape) => String.fromCharCode(Number.parseInt(escape.slice(1), 16)));
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

function join(existing: FormValue, added: FormValue): string[] {
  return ([] as string[]).concat(existing, added);
}

/** Two keys that land on one name (`a` and `[a]`): qs's merge, which keeps the first when the second is an empty string. */
function merge(existing: FormValue, added: FormValue): FormValue {
  return added === '' ? existing : join(existing, added);
}

/** The key a flat form stores `rawKey` under, or undefined for none. */
function keyOf(rawKey: string, arrayLimit: number): string | undefined {
  if (rawKey === '') return undefined;
  const clean = rawKey.length >= 2 && rawKey.startsWith('[') && rawKey.endsWith(']') ? rawKey.slice(1, -1) : rawKey;
  if (clean === '__proto__') return undefined;
  const index = Number.parseInt(clean, 10);
  // An index within the array limit becomes an array slot, which merges into the object under its number.
  if (clean !== rawKey && String(index) === clean && index >= 0 && index < arrayLimit) return String(index);
  return clean;
}

/**
 * Parses a form body of at most `parameterLimit` pairs (the caller has
 * counted them) into a plain object.
 */
export function parseFlatForm(body: string, charset: string | null, arrayLimit: number): Record<string, FormValue> {
  const latin1 = charset === 'iso-8859-1';
  // A null-prototype object, not a Map: qs visits keys in object order (integer-like keys first), which decides how colliding keys merge.
  const byRawKey = Object.create(null) as Record<string, FormValue>;
  const text = body.replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  for (const part of text.split('&')) {
    if (part === '') continue;
    const bracketEquals = part.indexOf(']=');
    const split = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
    const key = decode(split === -1 ? part : part.slice(0, split), latin1);
    const value = split === -1 ? '' : decode(part.slice(split + 1), latin1);
    const existing = byRawKey[key];
    byRawKey[key] = existing === undefined ? value : join(existing, value);
  }
  const form: Record<string, FormValue> = {};
  for (const rawKey of Object.keys(byRawKey)) {
    const value = byRawKey[rawKey]!;
    if (rawKey === '[]') {
      // `[]=a&[]=b`: an array at the top, merged into the object by index.
      const items = typeof value === 'string' ? [value] : value;
      items.forEach((item, index) => {
        const slot = String(index);
        form[slot] = Object.hasOwn(form, slot) ? merge(form[slot]!, item) : item;
      });
      continue;
    }
    const key = keyOf(rawKey, arrayLimit);
    if (key === undefined) continue;
    form[key] = Object.hasOwn(form, key) ? merge(form[key]!, value) : value;
  }
  return form;
}
