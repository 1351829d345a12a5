// Preloaded (`node --expose-gc --import tsx --import <this file> main.ts`)
// into a server under test: answers `{ type: 'heap', id }` IPC messages with
// the process's memory after two full garbage collections and its open
// resources, so a test measures the server, not itself. Not a library.

interface HeapRequest {
  readonly type: 'heap';
  readonly id: number;
}

const collect = (globalThis as { gc?: () => void }).gc;

process.channel?.unref();
process.on('message', (message: HeapRequest) => {
  if (message?.type !== 'heap') return;
  // Let callbacks already queued (closed sockets, settled promises) run before measuring.
  setImmediate(() => {
    collect?.();
    collect?.();
    const memory = process.memoryUsage();
    process.send?.({
      type: 'heap',
      id: message.id,
      collected: collect !== undefined,
      heapUsed: memory.heapUsed,
      external: memory.external,
      arrayBuffers: memory.arrayBuffers,
      rss: memory.rss,
      resources: process.getActiveResourcesInfo(),
    });
  });
});
