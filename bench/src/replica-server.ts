import type { TaskService } from '@taskwire/core';
import type { ServeA2AOptions } from '@taskwire/server-http';
import { serveA2A } from '@taskwire/server-http';

/**
 * Serves `service` over HTTP on 127.0.0.1 (a free port; JSON-RPC at
 * /a2a/jsonrpc), prints `READY <port>` for the driver, and on SIGTERM or
 * SIGINT closes the server, the service, then each of `closeAfter` in
 * order (a coordinator before its store), and exits. `fallback` answers
 * what the A2A routes do not (a benchmark's own measurements).
 */
export async function serveReplica(service: TaskService, closeAfter: readonly (() => Promise<void>)[], fallback?: ServeA2AOptions['fallback']): Promise<void> {
  const server = await serveA2A({ service, port: 0, host: '127.0.0.1', ...(fallback && { fallback }) });
  const shutdown = () =>
    void (async () => {
      await server.close();
      await service.close();
      for (const close of closeAfter) await close();
    })().finally(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.stdout.write(`READY ${server.port}\n`);
}
