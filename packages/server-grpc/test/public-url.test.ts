import { describe, expect, it } from 'vitest';
import { grpcAddress, grpcInterface, serveGrpc } from '../src/serve.js';
import { closeAfterTest, connect, referenceService } from './helpers.js';

describe('serveGrpc publicUrl: the address the card gives clients', () => {
  it("is the balancer's address when given, while the server answers at its own", async () => {
    const server = await serveGrpc({ service: referenceService(), publicUrl: 'grpc.example.com:443' });
    closeAfterTest(() => server.close(0));
    expect(server.publicUrl).toBe('grpc.example.com:443');
    expect(grpcInterface(server.publicUrl)).toEqual({ url: 'grpc.example.com:443', protocolBinding: 'GRPC', protocolVersion: '1.0' });
    expect(server.url).toBe(`127.0.0.1:${server.port}`);
    const client = connect(server.url);
    const task = await client.unary('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'echo hi' }] } });
    expect('task' in task && task.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('is the server\'s own address when not given', async () => {
    const server = await serveGrpc({ service: referenceService() });
    closeAfterTest(() => server.close(0));
    expect(server.publicUrl).toBe(server.url);
  });

  it('must be host:port', async () => {
    for (const good of ['lb:8081', '10.0.0.1:443', '[::1]:8081', 'grpc.example.com:65535']) expect(grpcAddress(good)).toBe(good);
    for (const bad of ['grpc.example.com', 'grpc://grpc.example.com:443', 'grpc.example.com:0', 'grpc.example.com:65536', 'a b:1', 'host:1/path', '::1:8081']) {
      expect(() => grpcAddress(bad, '--public-grpc-url'), bad).toThrow(/--public-grpc-url must be host:port/);
    }
    await expect(serveGrpc({ service: referenceService(), publicUrl: 'nope' })).rejects.toThrow(/publicUrl must be host:port/);
  });
});
