/** One subjectAltName entry: its kind as node writes it (`URI`, `DNS`, `email`, `IP Address`, ...) and its value, unescaped. */
export interface AltName {
  readonly kind: string;
  readonly value: string;
}

/** A JSON string literal at the start of the input, as node writes a quoted SAN value. */
const JSON_STRING = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/;

/**
 * Reads a subjectAltName as node writes it (`getPeerCertificate().subjectaltname`,
 * `X509Certificate.subjectAltName`): entries `Kind:value` separated by
 * `", "`, where a value that holds a comma, a quote or another character
 * that would make this ambiguous is written as a JSON string
 * (`URI:"spiffe://a\u002c b"`). Quoted parts are unescaped, so a comma
 * inside a value never starts a new entry. Throws an Error on text that is
 * not in this form (an unterminated quote, a comma not followed by a
 * space, an entry with no kind); an empty string has no entries.
 */
export function parseSubjectAltName(text: string): AltName[] {
  const entries: AltName[] = [];
  let offset = 0;
  while (offset < text.length) {
    let entry = '';
    for (;;) {
      const rest = text.slice(offset);
      const stop = rest.search(/[,"]/);
      if (stop === -1) {
        entry += rest;
        offset = text.length;
        break;
      }
      entry += rest.slice(0, stop);
      offset += stop;
      if (rest[stop] === ',') {
        if (text[offset + 1] !== ' ' || offset + 2 >= text.length) throw new Error(`subjectAltName: a comma at ${offset} does not separate two entries`);
        offset += 2;
        break;
      }
      const quoted = JSON_STRING.exec(text.slice(offset));
      if (!quoted) throw new Error(`subjectAltName: the quoted value at ${offset} is not a valid string`);
      entry += JSON.parse(quoted[0]) as string;
      offset += quoted[0].length;
    }
    const colon = entry.indexOf(':');
    if (colon <= 0) throw new Error('subjectAltName: an entry has no kind');
    entries.push({ kind: entry.slice(0, colon), value: entry.slice(colon + 1) });
  }
  return entries;
}
