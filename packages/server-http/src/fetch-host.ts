import type { Logger } from '@taskwire/core';
import type { CoreHandle, HttpRequest, StreamReply } from './http-types.js';
import { decodeBody } from './json-body.js';
import { notFoundReply, payloadTooLarge } from './replies.js';

/** A fetch-style handler for Workers, Bun, Deno and service workers: `(Request) => Promise<Response>`. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Reads a fetch request body as text, refusing it past `limit` bytes (PayloadTooLarge) and when it is not UTF-8 (ParseError). */
async function readBody(request: Request, limit: number): Promise<string> {
  if (Number(request.headers.get('content-length')) > limit) throw payloadTooLarge(limit);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decodeBody(bytes);
}

/**
 * A pull-based body: the runtime asks for the next chunk only when the
 * client has taken the previous one (high-water mark 0), so a slow reader
 * never makes the server buffer events. Canceling the body (the client went
 * away) or aborting the request cancels the stream; the task runs on.
 */
function streamBody(reply: StreamReply, signal: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const { stream } = reply;
  signal.addEventListener('abort', () => stream.cancel(), { once: true });
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = await stream.pull();
        if (chunk === undefined) controller.close();
        else controller.enqueue(encoder.encode(chunk));
      },
      cancel() {
        stream.cancel();
      },
    },
    { highWaterMark: 0 },
  );
}

/** The fetch host of a core handler (see {@link FetchHandler}); paths that are not A2A get a 404. */
export function fetchHandler(handle: CoreHandle, maxBodyBytes: number, logger: Logger | undefined): FetchHandler {
  return async (request) => {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const neutral: HttpRequest = {
      method: request.method.toUpperCase(),
      path: url.pathname,
      query: url.search.slice(1),
      headers,
      body: () => readBody(request, maxBodyBytes),
    };
    try {
      const reply = (await handle(neutral)) ?? notFoundReply(neutral.path);
      if (reply.kind === 'stream') return new Response(streamBody(reply, request.signal), { status: reply.status, headers: reply.headers });
      const empty = reply.body === '' || reply.status === 204 || reply.status === 304 || neutral.method === 'HEAD';
      return new Response(empty ? null : reply.body, { status: reply.status, headers: reply.headers });
    } catch (error) {
      logger?.error({ error }, 'The A2A fetch handler failed');
      return new Response(null, { status: 500 });
    }
  };
}
