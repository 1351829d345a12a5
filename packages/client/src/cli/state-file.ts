import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ConversationState } from '../task-routing.js';
import { UsageError } from './args.js';

/** What the CLI remembers between runs: the last agent, and one conversation per agent URL. */
export interface CliState {
  readonly lastUrl?: string | undefined;
  readonly conversations: Readonly<Record<string, ConversationState>>;
}

/** The state file: `--state`, else `TASKWIRE_STATE`, else `~/.taskwire/conversations.json`. */
export function statePath(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, home: string): string {
  return flag ?? env.TASKWIRE_STATE ?? join(home, '.taskwire', 'conversations.json');
}

/** Reads the state file; a missing file is an empty state, an unreadable one a usage error saying what to do. */
export async function loadState(path: string): Promise<CliState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { conversations: {} };
    throw error;
  }
  try {
    const value = JSON.parse(text) as CliState;
    if (typeof value !== 'object' || value === null || typeof value.conversations !== 'object') throw new Error('no conversations');
    return value;
  } catch {
    throw new UsageError(`The state file ${path} is not a taskwire state file; delete it or pass --state <another file>`);
  }
}

/** Writes the state file atomically (a temporary file renamed over it), creating its folder. */
export async function saveState(path: string, state: CliState): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temporary, path);
}
