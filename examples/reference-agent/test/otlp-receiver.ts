import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One OTLP/HTTP export as it arrived: its path (`/v1/traces`, `/v1/metrics`), content type and body. */
export interface OtlpExport {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

function read(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * A minimal OTLP/HTTP receiver on 127.0.0.1 (what a collector's `otlphttp`
 * receiver does, without decoding): it keeps every export and answers 200.
 * {@link until} waits for an export that satisfies a condition.
 */
export class OtlpReceiver {
  readonly exports: OtlpExport[] = [];
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    let receiver: OtlpReceiver | undefined;
    const server = createServer((request, response) => {
      void read(request).then((body) => {
        receiver!.exports.push({ path: request.url ?? '', contentType: String(request.headers['content-type'] ?? ''), body });
        for (const wake of receiver!.waiters.splice(0)) wake();
        const json = String(request.headers['content-type']).includes('json');
        response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
        response.end(json ? '{}' : '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  /** Resolves with the first export (already here or still to come) that `match` accepts. */
  async until(match: (e: OtlpExport) => boolean): Promise<OtlpExport> {
    for (;;) {
      const found = this.exports.find(match);
      if (found) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
