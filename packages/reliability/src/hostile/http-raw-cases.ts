import type { Random } from '../support/random.js';
import { API_KEY } from './fixtures.js';
import { expectRawStatus } from './http-expect.js';
import type { HttpTarget } from './http-exchange.js';
import type { HostileCase } from './hostile-case.js';

const LIMIT = 1024 * 1024;
const BODY = '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}';

/** The request head of a POST to `path` with `headers` (CRLF-terminated lines, blank line included). */
function head(path: string, headers: Record<string, string>): string {
  const lines = Object.entries({ host: '127.0.0.1', 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': API_KEY, ...headers });
  return `POST ${path} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

/**
 * Byte-level abuse of an HTTP endpoint at `path`, below what any HTTP
 * client lets one send: truncated bodies and chunks, lying or malformed
 * lengths, broken request lines and headers, oversized heads, and bodies
 * past the 1 MiB limit (declared, chunked, or just sent). Node's parser
 * answers framing errors with 400 (431 for an oversized head) and closes;
 * the A2A handler answers an oversized body with 413 PAYLOAD_TOO_LARGE.
 */
export function rawHttpCases(target: HttpTarget, path: string, random: Random, count: number): HostileCase[] {
  const cases: HostileCase[] = [];
  const framing = (name: string, bytes: string | Buffer, status: number): HostileCase => ({
    category: 'truncated frames',
    name,
    run: async () => expectRawStatus(await target.exchange(bytes), status),
  });
  const oversized = (name: string, bytes: string | Buffer): HostileCase => ({
    category: 'oversized body',
    name,
    run: async () => {
      const answer = await target.exchange(bytes, true);
      const problems = expectRawStatus(answer, 413);
      if (problems.length === 0 && !answer.includes('PAYLOAD_TOO_LARGE')) problems.push('a 413 without the PAYLOAD_TOO_LARGE reason');
      return problems;
    },
  });
  const makers: Array<() => HostileCase> = [
    () => {
      const cut = random.int(0, BODY.length - 1);
      return framing(`body cut at ${cut} of ${BODY.length} bytes, then FIN`, head(path, { 'content-length': String(BODY.length) }) + BODY.slice(0, cut), 400);
    },
    () => {
      const lines = head(path, { 'x-filler': 'y'.repeat(random.int(0, 200)) });
      const cut = random.int(5, lines.length - 3);
      return framing(`request head cut at ${cut} bytes, then FIN`, lines.slice(0, cut), 400);
    },
    () => framing('a request line that is not HTTP', `${random.string(random.int(1, 60), 'ABCxyz /\t')}\r\n\r\n`, 400),
    () => framing('Content-Length that is not a number', head(path, { 'content-length': random.pick(['abc', '-5', '1e3', '0x10', '5, 6']) }) + BODY, 400),
    () => framing('Content-Length and Transfer-Encoding together', head(path, { 'content-length': '5', 'transfer-encoding': 'chunked' }) + '0\r\n\r\n', 400),
    () => framing('a chunk size that is not hex', head(path, { 'transfer-encoding': 'chunked' }) + `${random.pick(['zz', '-1', 'g', ' '])}\r\n{}\r\n0\r\n\r\n`, 400),
    () => {
      const cut = random.int(1, BODY.length - 1);
      return framing(`chunked body cut at ${cut} bytes, then FIN`, head(path, { 'transfer-encoding': 'chunked' }) + `${BODY.length.toString(16)}\r\n${BODY.slice(0, cut)}`, 400);
    },
    () => framing('a NUL byte in a header value', head(path, { 'x-evil': `a\u0000b` }) + '{}', 400),
    () => framing(`a request head of ${20 + random.int(0, 40)} KiB`, head(path, { 'x-big': 'b'.repeat((20 + random.int(0, 40)) * 1024) }) + BODY, 431),
    () => oversized('a declared Content-Length past the limit (no body sent)', head(path, { 'content-length': String(LIMIT + random.int(1, 10 * LIMIT)) })),
    () => {
      const size = LIMIT + random.int(1, 256 * 1024);
      return oversized(`a chunked body of ${size} bytes`, head(path, { 'transfer-encoding': 'chunked' }) + `${size.toString(16)}\r\n${'a'.repeat(size)}\r\n0\r\n\r\n`);
    },
  ];
  for (let i = 0; i < count; i++) cases.push(random.pick(makers)());
  return cases;
}
