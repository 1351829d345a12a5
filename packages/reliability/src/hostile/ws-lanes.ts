import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import WebSocket from 'ws';

/**
 * One authenticated WebSocket connection used for one request at a time:
 * {@link exchange} sends a frame and resolves the next message the server
 * sends back (keep-alive `PING`s skipped), so every answer is matched to its
 * request even when it carries no id (a frame that could not be read).
 */
export class WsLane {
  private pending: { resolve(message: string): void; reject(error: Error): void } | undefined;
  private closed: string | undefined;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const text = String(data);
      if (text === 'PING') return void socket.send('PONG');
      const waiter = this.pending;
      this.pending = undefined;
      waiter?.resolve(text);
    });
    socket.on('close', (code) => {
      this.closed = `the connection closed (${code})`;
      this.pending?.reject(new Error(this.closed));
      this.pending = undefined;
    });
  }

  /** Opens a connection with `headers` and resolves once it is open. */
  static async open(url: string, headers: Record<string, string>): Promise<WsLane> {
    const socket = new WebSocket(url, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new WsLane(socket);
  }

  /** Sends one frame (text, or binary for a Buffer) and resolves the server's next message. */
  exchange(frame: string | Buffer): Promise<string> {
    if (this.closed) return Promise.reject(new Error(this.closed));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.send(frame, { binary: typeof frame !== 'string' });
    });
  }

  /** True while the connection is usable. */
  get open(): boolean {
    return this.closed === undefined;
  }

  /** Closes the connection. */
  close(): void {
    this.socket.close();
  }
}

/** A fixed set of lanes, each lent to one case at a time. */
export class LanePool {
  private readonly free: WsLane[];
  private readonly waiting: Array<(lane: WsLane) => void> = [];

  constructor(readonly lanes: readonly WsLane[]) {
    this.free = [...lanes];
  }

  /** Runs `use` with a lane of its own, then gives the lane back. */
  async with<T>(use: (lane: WsLane) => Promise<T>): Promise<T> {
    const lane = this.free.pop() ?? (await new Promise<WsLane>((resolve) => this.waiting.push(resolve)));
    try {
      return await use(lane);
    } finally {
      const next = this.waiting.shift();
      if (next) next(lane);
      else this.free.push(lane);
    }
  }

  /** Closes every lane's connection. */
  close(): void {
    for (const lane of this.lanes) lane.close();
  }
}

/** A client WebSocket frame built by hand: FIN/RSV/opcode byte, a masked (or, to break the rules, unmasked) payload. */
export function rawFrame(first: number, payload: Buffer, options: { masked?: boolean; declaredLength?: number } = {}): Buffer {
  const masked = options.masked ?? true;
  const length = options.declaredLength ?? payload.length;
  const head: number[] = [first];
  if (length < 126) head.push((masked ? 0x80 : 0) | length);
  else if (length < 65_536) head.push((masked ? 0x80 : 0) | 126, length >> 8, length & 0xff);
  else {
    head.push((masked ? 0x80 : 0) | 127);
    const big = Buffer.alloc(8);
    big.writeBigUInt64BE(BigInt(length));
    head.push(...big);
  }
  if (!masked) return Buffer.concat([Buffer.from(head), payload]);
  const mask = randomBytes(4);
  const body = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from(head), mask, body]);
}

/** Opens a connection and resolves the close code the server ends it with after `act` (which may write raw bytes). */
export async function closeCodeAfter(
  url: string,
  headers: Record<string, string>,
  act: (socket: WebSocket, raw: Socket) => void,
): Promise<number | string> {
  const socket = new WebSocket(url, { headers });
  return new Promise((resolve) => {
    socket.on('error', () => undefined);
    socket.on('unexpected-response', (_request, response) => {
      resolve(`HTTP ${response.statusCode}`);
      socket.terminate();
    });
    socket.on('close', (code) => resolve(code));
    socket.on('open', () => act(socket, (socket as unknown as { _socket: Socket })._socket));
  });
}
