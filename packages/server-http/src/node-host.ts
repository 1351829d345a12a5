import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { ClientCertificate, Logger } from '@taskwire/core';
import { A2AError, clientCertificateOf } from '@taskwire/core';
import type { CoreHandle, HttpRequest, StreamReply, TextReply } from './http-types.js';
import { pathOf } from './http-types.js';
import { decodeBody } from './json-body.js';
import { notFoundReply, payloadTooLarge } from './replies.js';

/**
 * A node request listener, also usable as Express/Connect middleware: it
 * answers A2A paths and passes every other request to `next` (or answers
 * 404 when there is none). Paths are read from `req.url`, so under
 * `app.use('/agent', handler)` they are relative to `/agent`. A body a
 * framework already read and parsed (`req.body`) is used as it is.
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/** Reads a node request body as text, refusing it past `limit` bytes (PayloadTooLarge) and when it is not UTF-8 (ParseError). */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  if (req.readableEnded) {
    const message = 'Another middleware already read the request body; mount the A2A handler before body parsers (or after express.json())';
    return Promise.reject(new A2AError('Internal', message));
  }
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(payloadTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        reject(payloadTooLarge(limit));
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = () => {
      cleanup();
      try {
        resolve(decodeBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    };
    // The client went away mid-body: a protocol error of that request (no one is left to answer), not a server failure.
    const onError = (error: Error) => {
      cleanup();
      reject(new A2AError('InvalidRequest', `The request body could not be read (${error.message}); send the whole body before closing the connection`));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** Shared with the handler: once it is closing, answers end their connection (node would keep it alive). */
export interface HostState {
  closing: boolean;
}

function writeText(res: ServerResponse, reply: TextReply, state: HostState): void {
  const headers = reply.headers;
  if (reply.status !== 204 && reply.status !== 304) headers['content-length'] = String(Buffer.byteLength(reply.body));
  if (state.closing) headers.connection = 'close';
  res.writeHead(reply.status, headers);
  res.end(reply.body);
}

/**
 * Writes an SSE answer with backpressure: the next chunk is pulled only
 * after the previous one was accepted (`write()` returned true, or 'drain'
 * came). When the client goes away the stream is canceled (the task runs on).
 */
async function writeStream(res: ServerResponse, reply: StreamReply, state: HostState): Promise<void> {
  const { stream } = reply;
  let wake: (() => void) | undefined;
  const onClose = () => {
    stream.cancel();
    wake?.();
  };
  res.once('close', onClose);
  res.writeHead(reply.status, reply.headers);
  try {
    for (let chunk = await stream.pull(); chunk !== undefined && !res.destroyed; chunk = await stream.pull()) {
      if (!res.write(chunk)) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          res.once('drain', resolve);
        });
        wake = undefined;
      }
    }
  } finally {
    res.off('close', onClose);
    const socket = res.socket;
    if (state.closing) res.once('finish', () => socket?.end());
    if (!res.destroyed) res.end();
  }
}

/** The client certificate of a TLS socket (`undefined` on plain TCP or when the client sent none). */
export function peerCertificate(socket: Socket | TLSSocket | null | undefined): ClientCertificate | undefined {
  if (!socket || !('getPeerCertificate' in socket)) return undefined;
  return clientCertificateOf(socket.getPeerCertificate(), socket.authorized);
}

/** The node host of a core handler (see {@link NodeHandler}). */
export function nodeHandler(handle: CoreHandle, maxBodyBytes: number, logger: Logger | undefined, state: HostState): NodeHandler {
  return (req, res, next) => {
    const url = req.url ?? '/';
    const path = pathOf(url);
    const request: HttpRequest = {
      method: req.method ?? 'GET',
      path,
      query: url.slice(path.length + 1),
      headers: req.headers,
      body: () => readBody(req, maxBodyBytes),
      // A framework's parsed body counts only when it consumed the stream (Express 4 sets `{}` when it did not parse).
      parsedBody: req.readableEnded ? (req as { body?: unknown }).body : undefined,
      certificate: () => peerCertificate(req.socket),
    };
    handle(request)
      .then((reply) => {
        if (reply === undefined && next) return next();
        const answer = reply ?? notFoundReply(request.path);
        return answer.kind === 'text' ? writeText(res, answer, state) : writeStream(res, answer, state);
      })
      .catch((error: unknown) => {
        logger?.error({ error }, 'The A2A node handler failed');
        if (res.headersSent) res.destroy();
        else res.writeHead(500, { 'content-length': '0', connection: 'close' }).end();
      });
  };
}
