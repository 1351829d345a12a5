import { parseArgs } from 'node:util';
import { cliCommand } from './cli-command.js';
import { CONTRACT_STEPS, recordContractSteps } from './contract-steps.js';
import { redactUrl } from './connection.js';
import { migrate, migrationStatus } from './migrate.js';
import { DEFAULT_SCHEMA } from './schema-name.js';

/** The usage text of `taskwire-postgres`. */
export const CLI_USAGE = `Usage: taskwire-postgres <command> --url <postgres://user@host:5432/db> [--schema <name>]

Commands:
  migrate   apply the pending migrations (safe to run from several processes at once)
  status    show the schema's version and the pending migrations (exit code 1 when some are pending)
  contract  finish an upgrade: switch on what older releases cannot read (run it only once
            every replica runs this release; see "Upgrading a cluster" in the README)

Options:
  --url <url>       the database (default: $DATABASE_URL)
  --schema <name>   the schema of Taskwire's tables (default ${DEFAULT_SCHEMA})
  --help            this text`;

/** Where the command writes, and its environment. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Runs `taskwire-postgres` with `argv` (without the node and script
 * paths) and resolves its exit code: 0 done (or up to date), 1 failed (or,
 * for `status`, migrations pending), 2 bad usage. Never prints a password.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: { url: { type: 'string' }, schema: { type: 'string', default: DEFAULT_SCHEMA }, help: { type: 'boolean', default: false } },
    });
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n\n${CLI_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${CLI_USAGE}\n`);
    return 0;
  }
  const command = positionals[0];
  const url = values.url ?? io.env.DATABASE_URL;
  if (!['migrate', 'status', 'contract'].includes(command ?? '') || positionals.length !== 1 || !url) {
    const why = !url ? 'pass --url (or set DATABASE_URL)' : `unknown command ${JSON.stringify(positionals.join(' '))}`;
    io.stderr.write(`taskwire-postgres: ${why}\n\n${CLI_USAGE}\n`);
    return 2;
  }
  const options = { connectionString: url, schema: values.schema! };
  const where = `${redactUrl(url)}, schema "${options.schema}"`;
  try {
    if (command === 'migrate') {
      const result = await migrate(options);
      const applied = result.applied.map((m) => `  ${m.version}: ${m.name}\n`).join('');
      io.stdout.write(
        result.applied.length === 0
          ? `${where}: already at version ${result.version}, nothing to apply\n`
          : `${where}: migrated from version ${result.from} to ${result.version}\n${applied}`,
      );
      return 0;
    }
    if (command === 'contract') {
      const recorded = await recordContractSteps(options);
      const steps = CONTRACT_STEPS.map(({ step, what }) => `  ${step}: ${what}${recorded.includes(step) ? '' : ' (already recorded)'}\n`).join('');
      io.stdout.write(`${where}: ${recorded.length === 0 ? 'every contract step was already recorded' : `recorded ${recorded.length} contract step(s)`}\n${steps}`);
      return 0;
    }
    const status = await migrationStatus(options);
    const pending = status.pending.map((m) => `  ${m.version}: ${m.name}\n`).join('');
    io.stdout.write(
      status.pending.length === 0
        ? `${where}: at version ${status.version}, up to date\n`
        : `${where}: at version ${status.version} of ${status.latest}; pending:\n${pending}run: ${cliCommand()} migrate --url <url> --schema ${JSON.stringify(options.schema)}\n`,
    );
    return status.pending.length === 0 ? 0 : 1;
  } catch (error) {
    io.stderr.write(`taskwire-postgres ${command} (${where}) failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
