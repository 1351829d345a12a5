import type { CommandContext } from './commands.js';
import { stripControls } from './terminal.js';

/**
 * With `--extension`: a call option that records what the agent activated,
 * `seen()` for the set (undefined without `--extension`) and `print()`,
 * which says it on a line of its own (as data: the URIs are the agent's).
 */
export function activation(ctx: Pick<CommandContext, 'args' | 'print'>) {
  let seen: readonly string[] | undefined;
  const asked = ctx.args.extensions.length > 0;
  return {
    options: asked ? { onExtensions: (uris: readonly string[]) => (seen = uris) } : {},
    seen: () => (asked ? (seen ?? []) : undefined),
    print: () => asked && ctx.print(`(extensions activated: ${seen?.length ? seen.map((uri) => stripControls(uri)).join(', ') : 'none'})\n`),
  };
}

