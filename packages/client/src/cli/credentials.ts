import type { TokenProvider } from '../auth/token-provider.js';
import { tokenProviderFromFlags } from '../auth/credential-flags.js';
import type { CliArgs } from './args.js';

/**
 * The token provider the command line asks for (see
 * `tokenProviderFromFlags`): `--token` or `TASKWIRE_TOKEN`, or client
 * credentials; none when neither is given. Throws a `UsageError` naming
 * what is missing, never a secret.
 */
export function tokenProviderOf(args: CliArgs, env: Readonly<Record<string, string | undefined>>): TokenProvider | undefined {
  return tokenProviderFromFlags({ token: args.token, ...args.oauth }, env);
}
