import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson (RFC 8785)', () => {
  it('sorts keys by UTF-16 code units, non-ASCII included (RFC 8785 section 3.2.3)', () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",' +
        '"\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    // Read the order from the text: Object.keys would list the integer-like key "1" first.
    const keys = [...canonicalJson(input).matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) => JSON.parse(`"${m[1]}"`));
    // The emoji (surrogates D83D DE00) sorts before U+FB33 by code unit, though after it by code point.
    expect(keys).toEqual(['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']);
  });

  it('writes numbers, strings and literals as RFC 8785 section 3.2.4 shows', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts nested objects inside arrays, keeps array order, writes no whitespace', () => {
    const input = [[{ b: 1, a: [2, { d: 0, c: -0 }] }], [], {}, 'z'];
    expect(canonicalJson(input)).toBe('[[{"a":[2,{"c":0,"d":0}],"b":1}],[],{},"z"]');
  });

  it('skips undefined members and rejects what JSON cannot carry', () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson([Infinity])).toThrow(TypeError);
    expect(() => canonicalJson({ big: 1n })).toThrow(TypeError);
  });
});
