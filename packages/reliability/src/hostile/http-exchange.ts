import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

/** An HTTP answer as it came back. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One request, sent exactly as given (no defaults added but `content-length`). */
export interface HttpCall {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

/**
 * A raw HTTP client for one server: requests over `node:http` with a small
 * pool of its own (closed by {@link close}, so the server's sockets go away
 * too), and byte-level exchanges over a bare TCP socket for what an HTTP
 * client cannot send (broken framing, lying lengths, truncated bodies).
 */
export class HttpTarget {
  readonly host: string;
  readonly port: number;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });

  constructor(baseUrl: string) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
  }

  /** Sends one request and resolves its answer; rejects only on a network failure. */
  send(call: HttpCall): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...call.headers };
      if (call.body !== undefined) headers['content-length'] = String(Buffer.byteLength(call.body));
      const req = request({ host: this.host, port: this.port, method: call.method, path: call.path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(call.body);
    });
  }

  /**
   * Writes `bytes` on a fresh TCP connection (half-closing it afterwards
   * unless `keepOpen`) and resolves with everything the server sent back
   * until it closed the connection. Write errors (the server hung up
   * first) are expected and ignored.
   */
  exchange(bytes: string | Buffer, keepOpen = false): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(this.port, this.host);
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(received));
      socket.write(bytes, () => {
        if (!keepOpen) socket.end();
      });
    });
  }

  /** Closes the pool's connections. */
  close(): void {
    this.agent.destroy();
  }
}

/** The status code of a raw HTTP answer (`HTTP/1.1 413 ...`), or 0 when the server closed without answering. */
export function rawStatus(answer: string): number {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(answer);
  return match ? Number(match[1]) : 0;
}

/** The body of a raw HTTP answer. */
export function rawBody(answer: string): string {
  const at = answer.indexOf('\r\n\r\n');
  return at === -1 ? '' : Buffer.from(answer.slice(at + 4), 'latin1').toString('utf8');
}
