import { describe, expect, it } from 'vitest';
import { parseMcpArgs, UsageError } from './cli-args.js';

describe('parseMcpArgs', () => {
  it('reads the agent URL (http:// may be left out), --http, --timeout, --prefix and headers', () => {
    const command = parseMcpArgs(['127.0.0.1:8080', '--http', '3000', '--timeout', '500', '--prefix', 'ref_', '-H', 'X-Trace: 1', '--transport', 'GRPC'], {});
    expect(command).toMatchObject({ agentUrl: 'http://127.0.0.1:8080', httpPort: 3000, host: '127.0.0.1', timeoutMs: 500, toolPrefix: 'ref_' });
    expect(command.client).toEqual({ headers: { 'x-trace': '1' }, preferred: ['GRPC'] });
  });

  it('takes secrets from the environment: TASKWIRE_API_KEY, TASKWIRE_TOKEN, TASKWIRE_CLIENT_SECRET', async () => {
    expect(parseMcpArgs(['http://a'], { TASKWIRE_API_KEY: 'k' }).client.headers).toEqual({ 'x-api-key': 'k' });
    const token = parseMcpArgs(['http://a'], { TASKWIRE_TOKEN: 't' }).client.auth!;
    expect(await token.token()).toBe('t');
    expect(parseMcpArgs(['http://a', '--client-id', 'c', '--token-url', 'http://idp/token'], { TASKWIRE_CLIENT_SECRET: 's' }).client.auth).toBeDefined();
  });

  it('refuses what cannot run, without showing a secret', () => {
    const refused = (argv: string[], env = {}) => {
      try {
        parseMcpArgs(argv, env);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused([])).toBe('which agent? give its URL: taskwire-mcp <agent-url>');
    expect(refused(['http://a', 'http://b'])).toBe('one agent URL, please (got 2 arguments)');
    expect(refused(['http://a', '--http', 'x'])).toBe('--http needs a whole number (got "x")');
    expect(refused(['http://a', '--client-id', 'c', '--token-url', 'http://idp'])).toBe('--client-id c needs its secret: set TASKWIRE_CLIENT_SECRET');
    expect(refused(['http://a', '--client-id', 'c'], { TASKWIRE_CLIENT_SECRET: 'hush' })).not.toContain('hush');
    expect(refused(['http://a', '--token', 't', '--client-id', 'c'])).toBe('give either --token or --client-id, not both');
    expect(refused(['http://a', '--nope'])).toContain("Unknown option '--nope'");
    expect(refused(['http://a', '--http', '0', '--bridge-token', ''])).toBe('--bridge-token (or TASKWIRE_MCP_TOKEN) needs a token without spaces');
    expect(refused(['http://a', '--http', '0'], { TASKWIRE_MCP_TOKEN: 'two words' })).not.toContain('two words');
  });
});

describe('isLoopback (no warning for --host on these)', () => {
  it('knows loopback addresses and names', async () => {
    const { isLoopback } = await import('./http-server.js');
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '192.168.1.2', 'example.com', '::'].some(isLoopback)).toBe(false);
  });
});
