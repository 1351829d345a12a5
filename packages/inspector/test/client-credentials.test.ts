// OAuth client credentials through the page's API: the inspector fetches the
// token from a real token endpoint and calls the agent (the reference agent
// with --api-key, which takes the key as a bearer token) with it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAgent } from '@taskwire/reference-agent/browser-kit';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InspectorApi } from '../src/api.js';

let agent: RunningAgent;
let tokenUrl = '';
const requests: { authorization: string | undefined; body: string }[] = [];
const tokenServer = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    requests.push({ authorization: req.headers.authorization, body });
    const good = req.headers.authorization === `Basic ${Buffer.from('inspector:s3cret').toString('base64')}` && body.includes('grant_type=client_credentials');
    res.writeHead(good ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(good ? { access_token: 'sekret', token_type: 'Bearer', expires_in: 3600 } : { error: 'invalid_client' }));
  });
});

beforeAll(async () => {
  agent = await startAgent('sekret');
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
  tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/token`;
});
afterAll(async () => {
  await agent.close();
  await new Promise((resolve) => tokenServer.close(resolve));
});

describe('OAuth client credentials', () => {
  it('fetches a token once, calls every interface with it (gRPC, on another port, once its origin is trusted), and says so when the token endpoint refuses', async () => {
    const api = new InspectorApi();
    const clientCredentials = { tokenUrl, clientId: 'inspector', clientSecret: 's3cret', scope: 'a2a' };
    const report = await api.inspect({ url: agent.baseUrl, credentials: { clientCredentials, trustedOrigins: [agent.urls.grpc] } });
    expect(report.probes.map((p) => p.status)).toEqual(['answered', 'answered', 'answered', 'answered']);
    const reply = await api.call({ url: agent.baseUrl, credentials: { clientCredentials }, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'echo with a token' }] } } });
    expect(reply).toMatchObject({ result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } } });
    expect(requests).toHaveLength(1); // the token is reused until it expires
    expect(requests[0]!.body).toBe('grant_type=client_credentials&scope=a2a');

    const refused = api.inspect({ url: agent.baseUrl, credentials: { clientCredentials: { ...clientCredentials, clientSecret: 'wrong' } } });
    await expect(refused).rejects.toThrow(`the token URL ${tokenUrl} gave no access token (HTTP 401, invalid_client)`);
    await api.close();
  });
});
