// Runs the `taskwire` CLI's `main` in this process with captured output, for the CLI's tests.
import type { CliIo } from '../src/cli/main.js';
import { main } from '../src/cli/main.js';

/** What one in-process CLI run printed, and its exit code. */
export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs `taskwire <argv>` through `main` with `home` as the user's home (its
 * state file lives there), an empty environment, and stdout and stderr
 * captured; `extra` overrides any of those (an inspector, a terminal).
 */
export async function runMain(argv: readonly string[], home: string, extra: Partial<CliIo> = {}): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env: {},
    home,
    ...extra,
  });
  return { code, out, err };
}
