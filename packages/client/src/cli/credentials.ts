import type { TokenProvider } from '../auth/token-provider.js';
import { clientCredentials, staticToken } from '../auth/token-provider.js';
import type { CliArgs } from './args.js';
import { UsageError } from './args.js';

/**
 * The token provider the command line asks for: `--token` (or
 * `TASKWIRE_TOKEN`), or OAuth 2.0 client credentials from `--client-id`
 * with the secret from `TASKWIRE_CLIENT_SECRET` (or `--client-secret`) and
 * `--token-url` or `--issuer`; none when neither is given. Messages name
 * what is missing, never a secret.
 */
export function tokenProviderOf(args: CliArgs, env: Readonly<Record<string, string | undefined>>): TokenProvider | undefined {
  const { clientId, clientSecret, tokenUrl, issuer, scopes, resource } = args.oauth;
  const token = args.token ?? env.TASKWIRE_TOKEN;
  if (clientId === undefined) {
    if (clientSecret !== undefined || tokenUrl !== undefined || issuer !== undefined) throw new UsageError('--client-secret, --token-url and --issuer go with --client-id');
    return token ? staticToken(token) : undefined;
  }
  if (args.token !== undefined) throw new UsageError('give either --token or --client-id, not both');
  const secret = clientSecret ?? env.TASKWIRE_CLIENT_SECRET;
  if (!secret) throw new UsageError(`--client-id ${clientId} needs its secret: set TASKWIRE_CLIENT_SECRET`);
  if (!tokenUrl && !issuer) throw new UsageError('--client-id needs --token-url <url> (the token endpoint) or --issuer <url> (to discover it)');
  return clientCredentials({
    clientId,
    clientSecret: secret,
    ...(tokenUrl && { tokenUrl }),
    ...(issuer && { issuer }),
    ...(scopes.length > 0 && { scopes }),
    ...(resource && { resource }),
  });
}
