// Runs the `taskwire` CLI's `main` in this process with captured output, for the CLI's tests.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgentCard } from '@taskwire/reference-agent';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { CliIo } from '../src/cli/main.js';
import { main } from '../src/cli/main.js';
import type { Served } from './serve-reference.js';
import { serveEverywhere } from './serve-reference.js';

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

/** The agent the CLI's tests talk to, and the home of the test running now (see {@link serveForCli}). */
export interface CliRig {
  /** Where the agent is served (valid inside tests). */
  readonly served: Served;
  /** A fresh home directory for the current test (removed after it). */
  readonly home: string;
}

/**
 * Registers the hooks of a CLI test file: `agent` served for real on every
 * transport (with the reference agent's card) for the whole file, and a
 * fresh home directory for each test. Read the rig's fields inside tests.
 */
export function serveForCli(agent: Agent): CliRig {
  let service: TaskService | undefined;
  let served: Served | undefined;
  let home: string | undefined;
  beforeAll(async () => {
    const card = referenceAgentCard([{ url: 'memory://cli', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    service = new TaskService({ store: createMemoryTaskStore(), agent, card });
    served = await serveEverywhere(service);
  });
  afterAll(async () => {
    await served?.close();
    await service?.close();
  });
  beforeEach(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'taskwire-cli-'));
    home = dir;
    return () => rm(dir, { recursive: true, force: true });
  });
  return {
    get served() {
      return served!;
    },
    get home() {
      return home!;
    },
  };
}
