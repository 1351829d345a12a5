// `npx -y pnpm@10.34.9 --filter @taskwire/reference-agent idp` (from the repository root): a real OpenID provider (oidc-provider) on 127.0.0.1 for trying
// the reference agent with --oidc-issuer; it issues client-credentials JWTs to one demo client.
import { parseArgs } from 'node:util';
import { startTestIdp } from '@taskwire/auth/testing';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { port: { type: 'string', default: '41250' }, audience: { type: 'string', default: 'http://127.0.0.1:41241/a2a' } } });
const client = { clientId: 'demo', clientSecret: 'demo-secret-change-me', scopes: ['tasks:read', 'tasks:write', 'tasks:push'] };
const idp = await startTestIdp({ audience: values.audience!, clients: [client], port: Number(values.port) });
console.log(`Test OpenID provider (development only)
  issuer     ${idp.issuer}
  token URL  ${idp.tokenUrl}
  client     ${client.clientId} (secret: ${client.clientSecret}; scopes ${client.scopes.join(' ')})
  audience   ${values.audience}

Serve the agent:  npm start -- --store memory --port ${new URL(values.audience!).port} --oidc-issuer ${idp.issuer} --audience ${values.audience}
Call it:          TASKWIRE_CLIENT_SECRET=${client.clientSecret} npm run taskwire -- send ${new URL(values.audience!).host} echo hello \\
                    --client-id ${client.clientId} --issuer ${idp.issuer} --resource ${values.audience} --scope 'tasks:read tasks:write'`);
const stop = () => void idp.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
