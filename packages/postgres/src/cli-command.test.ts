import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliCommand } from './cli-command.js';
import { SchemaNotReadyError } from './migrate.js';

const clone = join(import.meta.dirname, '..', '..', '..');
const outside = mkdtempSync(join(tmpdir(), 'taskwire-cli-command-'));
afterAll(() => rmSync(outside, { recursive: true, force: true }));

describe('the taskwire-postgres command that works where the user is', () => {
  it('is the root script in a clone of the repository, at its root or in a folder of it', () => {
    expect(cliCommand(clone)).toBe('npm run taskwire-postgres --');
    expect(cliCommand(join(clone, 'examples', 'reference-agent'))).toBe('npm run taskwire-postgres --');
  });

  it('is the installed package command anywhere else', () => {
    mkdirSync(join(outside, 'app'));
    expect(cliCommand(join(outside, 'app'))).toBe('npx taskwire-postgres');
  });

  it('is what the unmigrated-schema message tells the user to run', () => {
    const status = { schema: 'taskwire', version: 0, latest: 2, pending: [] };
    expect(new SchemaNotReadyError(status, 'postgres://db').message).toContain(`Apply the migrations first: ${cliCommand()} migrate --url postgres://db --schema "taskwire"`);
  });
});
