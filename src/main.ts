// The `gatehouse` command line. Every command reads the same configuration as the server.
// Failures print one line on stderr ("gatehouse: …") and exit non-zero; no stack dumps.
// Only what every command needs is imported here; each command loads its own modules when it runs
// (the server's start-up must not load the simulator, the demo or the admin commands).
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { DataDirError } from './db/data-dir.ts';
import { AppError } from './errors.ts';
import { createLogger } from './logger.ts';

// Failures that a command reports in one line, by name: their modules are loaded only when used.
const EXPECTED = new Set([
  'ConfigError',
  'DataDirError',
  'DatabaseUnavailableError',
  'CliError',
  'MigrationMismatchError',
  'PortUnavailableError',
]);
const isExpected = (error: unknown) =>
  error instanceof ConfigError || error instanceof DataDirError || (error instanceof Error && EXPECTED.has(error.name));

function serveCommand(): Command {
  return new Command('serve').description('Run the HTTP service (the default of `npm start`).').action(async () => {
    const config: Config = loadConfig();
    const logger = createLogger(config);
    const { closeOnSignals, startServer } = await import('./server.ts');
    await startServer(config, logger, {
      beforeServing: (server) => closeOnSignals(server, logger, config.shutdownTimeoutSeconds),
    });
  });
}

function migrateCommand(): Command {
  return new Command('migrate')
    .description('Apply database migrations (also done by `serve` at start-up) and print what was applied.')
    .action(async () => {
      const { withDatabase, printJson } = await import('./cli/support.ts');
      await withDatabase('migrate', async (database) => {
        const { migrationsApplied } = await import('./db/migrate.ts');
        printJson({
          database: database.kind,
          location: database.location,
          upToDate: await migrationsApplied(database.pool),
        });
      });
    });
}

/**
 * The command line. `serve` and `migrate` alone need none of the other commands' modules: for
 * them (`gatehouse serve`, `npm start`) only those two are defined; any other command line — the
 * other commands, `--help` — gets them all.
 */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const program = new Command('gatehouse')
    .description('Gatehouse: the cloud side of self-storage gateway controllers.')
    .showHelpAfterError()
    .exitOverride();
  program.addCommand(serveCommand());
  program.addCommand(migrateCommand());
  if (argv[2] === 'serve' || argv[2] === 'migrate') return program;
  const [{ adminCommand }, { simulatorCommand }, { demoCommand }] = await Promise.all([
    import('./tenancy/cli.ts'),
    import('./simulator/command.ts'),
    import('./demo/command.ts'),
  ]);
  program.addCommand(adminCommand());
  program.addCommand(simulatorCommand());
  program.addCommand(demoCommand());
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    if (error instanceof AppError) {
      const fields = error.errors.map((e) => `${e.path} ${e.message}`).join('; ');
      process.stderr.write(`gatehouse: ${error.message}${fields ? ` (${fields})` : ''}\n`);
      process.exitCode = 1;
      return;
    }
    const expected = isExpected(error);
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`gatehouse: ${expected ? message : `unexpected failure: ${message}`}\n`);
    process.exitCode = 1;
  }
}
