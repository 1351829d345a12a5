import type { TokenProvider } from './token-provider.js';
import { clientCredentials, staticToken } from './token-provider.js';

/** A command line that cannot run: wrong command, missing argument, bad option (commands exit with code 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The credential options a command line gives (`--token`, `--client-id` and its companions); secrets may also come from the environment. */
export interface CredentialFlags {
  /** A bearer token (`--token`). */
  readonly token?: string | undefined;
  readonly clientId?: string | undefined;
  readonly clientSecret?: string | undefined;
  readonly tokenUrl?: string | undefined;
  readonly issuer?: string | undefined;
  readonly scopes?: readonly string[];
  readonly resource?: string | undefined;
}

/**
 * The token provider a command line asks for: `--token` (or
 * `TASKWIRE_TOKEN`), or OAuth 2.0 client credentials from `--client-id`
 * with the secret from `TASKWIRE_CLIENT_SECRET` (or `--client-secret`) and
 * `--token-url` or `--issuer`; undefined when neither is given. Throws a
 * {@link UsageError} naming what is missing or clashing, never a secret.
 * Shared by every Taskwire command that calls an agent.
 */
export function tokenProviderFromFlags(flags: CredentialFlags, env: Readonly<Record<string, string | undefined>>): TokenProvider | undefined {
  const { clientId, clientSecret, tokenUrl, issuer, resource } = flags;
  const scopes = flags.scopes ?? [];
  if (clientId === undefined) {
    if (clientSecret !== undefined || tokenUrl !== undefined || issuer !== undefined) throw new UsageError('--client-secret, --token-url and --issuer go with --client-id');
    const token = flags.token ?? env.TASKWIRE_TOKEN;
    return token ? staticToken(token) : undefined;
  }
  if (flags.token !== undefined) throw new UsageError('give either --token or --client-id, not both');
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
