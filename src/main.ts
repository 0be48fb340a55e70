// The `gatehouse` command line. Every command reads the same configuration as the server.
// Failures print one line on stderr ("gatehouse: …") and exit non-zero; no stack dumps.
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { DataDirError } from './db/data-dir.ts';
import { DatabaseUnavailableError } from './db/database.ts';
import { MigrationMismatchError } from './db/migrate.ts';
import { AppError } from './errors.ts';
import { createLogger } from './logger.ts';
import { closeOnSignals, startServer } from './server.ts';
import { CliError, printJson, withDatabase } from './cli/support.ts';
import { demoCommand } from './demo/command.ts';
import { simulatorCommand } from './simulator/command.ts';
import { adminCommand } from './tenancy/cli.ts';

function serveCommand(): Command {
  return new Command('serve').description('Run the HTTP service (the default of `npm start`).').action(async () => {
    const config: Config = loadConfig();
    const logger = createLogger(config);
    const server = await startServer(config, logger);
    closeOnSignals(server, logger, config.shutdownTimeoutSeconds);
  });
}

function migrateCommand(): Command {
  return new Command('migrate')
    .description('Apply database migrations (also done by `serve` at start-up) and print what was applied.')
    .action(async () => {
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

export function buildProgram(): Command {
  const program = new Command('gatehouse')
    .description('Gatehouse: the cloud side of self-storage gateway controllers.')
    .showHelpAfterError()
    .exitOverride();
  program.addCommand(serveCommand());
  program.addCommand(migrateCommand());
  program.addCommand(adminCommand());
  program.addCommand(simulatorCommand());
  program.addCommand(demoCommand());
  return program;
}

const EXPECTED = [ConfigError, DataDirError, DatabaseUnavailableError, CliError, MigrationMismatchError];

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
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
    const expected = EXPECTED.some((type) => error instanceof type);
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`gatehouse: ${expected ? message : `unexpected failure: ${message}`}\n`);
    process.exitCode = 1;
  }
}
