// The `gatehouse` command line. Every command reads the same configuration as the server.
// Failures print one line on stderr ("gatehouse: …") and exit non-zero; no stack dumps.
// Only what every command needs is imported here; each command loads its own modules when it runs
// (the server's start-up must not load the simulator, the demo or the admin commands).
import cluster from 'node:cluster';
import path from 'node:path';
import { Command, CommanderError, type Option } from 'commander';
import { packageVersion } from './code-dir.ts';
import { ConfigError, loadConfig, misspeltSettings, misspeltSettingWarning, type Config } from './config.ts';
import { DataDirError, dataDirLayout } from './db/data-dir.ts';
import { CodeKeyRefusedError, describeDatabaseUrl, explainCodeKeyFailure } from './db/start-failures.ts';
import { AppError } from './errors.ts';
import { createLogger } from './logger.ts';

// Failures that a command reports in one line, by name: their modules are loaded only when used.
const EXPECTED = new Set([
  'CodeKeyMismatchError',
  'CodeKeyRefusedError',
  'ConfigError',
  'DataDirError',
  'DatabaseUnavailableError',
  'CliError',
  'MigrationMismatchError',
  'PortUnavailableError',
]);
const isExpected = (error: unknown) =>
  error instanceof ConfigError || error instanceof DataDirError || (error instanceof Error && EXPECTED.has(error.name));

/** Where this instance's gate-code key came from, and the database it was refused by, for its start-failure sentence. */
function codeKeyFacts(config: Config) {
  return {
    fromSetting: config.accessCodeKey !== null,
    keyFile: path.join(dataDirLayout(config.dataDir).keysDir, 'access-codes.key'),
    database: config.databaseUrl
      ? `database ${describeDatabaseUrl(config.databaseUrl)}`
      : `the embedded database in ${config.dataDir}`,
  };
}

function serveCommand(): Command {
  return new Command('serve')
    .description('Run the HTTP service (the default of `npm start`).')
    .option(
      '--workers <count>',
      'processes serving the port: a number, or auto for one per core (PostgreSQL only), in place of WORKERS',
    )
    .action(async (options: { workers?: string }) => {
      // Handed on as WORKERS, as --data-dir is as DATA_DIR: config.ts reads (and checks) it, the workers inherit it.
      if (options.workers !== undefined) process.env.WORKERS = options.workers;
      const config: Config = loadConfig();
      const logger = createLogger(config);
      // Once per start: a cluster's workers read the same environment.
      if (cluster.isPrimary) {
        for (const misspelt of misspeltSettings()) logger.warn(misspelt, misspeltSettingWarning(misspelt));
      }
      try {
        if (config.workers > 1) {
          const { serveCluster } = await import('./cluster.ts');
          await serveCluster(config, logger);
          return;
        }
        const { closeOnSignals, startServer } = await import('./server.ts');
        await startServer(config, logger, {
          beforeServing: (server) => closeOnSignals(server, logger, config.shutdownTimeoutSeconds),
        });
      } catch (error) {
        const codeKey = explainCodeKeyFailure(error, codeKeyFacts(config));
        throw codeKey ? new CodeKeyRefusedError(codeKey) : error;
      }
    })
    .addHelpText(
      'after',
      `
Settings come from the environment (docs/CONFIGURATION.md); a data directory that does not exist
yet is created, its database migrated.

Examples:
  $ gatehouse serve --data-dir /var/lib/gatehouse
  $ PORT=0 gatehouse serve                              # any free port
  $ DATABASE_URL=postgres://gatehouse@db.internal:5432/gatehouse gatehouse serve
  $ DATABASE_URL=postgres://gatehouse@db.internal:5432/gatehouse gatehouse serve --workers auto   # one process per core`,
    );
}

function migrateCommand(): Command {
  return new Command('migrate')
    .description('Apply database migrations (also done by `serve` at start-up) and print what was applied.')
    .action(async () => {
      const { withDatabase, printJson } = await import('./cli/support.ts');
      await withDatabase(
        'migrate',
        async (database) => {
          const { migrationsApplied } = await import('./db/migrate.ts');
          printJson({
            database: database.kind,
            location: database.location,
            upToDate: await migrationsApplied(database.pool),
          });
        },
        { create: true },
      );
    })
    .addHelpText(
      'after',
      `
A new data directory is created (and its database migrated) when there is none.

Examples:
  $ gatehouse migrate --data-dir /var/lib/gatehouse
  $ DATABASE_URL=postgres://gatehouse@db.internal:5432/gatehouse gatehouse migrate`,
    );
}

/**
 * What commander's help does not say by itself, on every command of the tree: which options are
 * required (each such description ends with "(required)"), and the program's own options
 * (--data-dir) under each command's.
 */
export function completeHelp(command: Command): void {
  for (const option of command.options as Option[]) {
    if (option.mandatory && !option.description.endsWith('(required)'))
      option.description = option.description ? `${option.description} (required)` : '(required)';
  }
  command.configureHelp({ showGlobalOptions: true });
  for (const sub of command.commands as Command[]) completeHelp(sub);
}

/**
 * `--data-dir` is the program's option, taken before or after the command's name (commander reads
 * a program's options anywhere on the line). It is handed on as DATA_DIR, so that every command,
 * and config.ts (the only reader of the environment), sees the same directory however deep it
 * reads it. A command that has its own --data-dir (the demo's directory to keep) would never see
 * the value: it is handed to it too.
 */
function applyDataDir(program: Command, action: Command): void {
  const dir = program.opts<{ dataDir?: string }>().dataDir;
  if (dir === undefined) return;
  process.env.DATA_DIR = path.resolve(dir);
  if (action.options.some((o) => o.long === '--data-dir')) action.setOptionValue('dataDir', dir);
}

/** The command a command line names: its first word that is neither an option nor --data-dir's value. */
function commandName(argv: string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--data-dir') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * The command line. `serve` and `migrate` alone need none of the other commands' modules: for
 * them (`gatehouse serve`, `npm start`) only those two are defined; any other command line — the
 * other commands, `--help` — gets them all.
 */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const program = new Command('gatehouse')
    .description('Gatehouse: the cloud side of self-storage gateway controllers.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--data-dir <dir>', 'the data directory (embedded database, signing keys, blobs), in place of DATA_DIR')
    .showHelpAfterError()
    .exitOverride()
    .hook('preAction', applyDataDir)
    .addHelpText(
      'after',
      `
Every command reads the server's settings from the environment (DATA_DIR, DATABASE_URL, …; see
docs/CONFIGURATION.md). A command that opens the database says which one on stderr; its answer
is one JSON object on stdout.

Examples:
  $ gatehouse serve                                   # the service, on ./data (or DATA_DIR)
  $ gatehouse --data-dir /var/lib/gatehouse admin account list
  $ gatehouse admin account create --name "Acme Storage"
  $ gatehouse backup /backups/gatehouse.tar.gz        # while it serves; gatehouse restore puts it back
  $ gatehouse simulate --url http://localhost:8080 --gateway gwc_…:gh_gs_…
  $ gatehouse demo`,
    );
  program.addCommand(serveCommand());
  program.addCommand(migrateCommand());
  const named = commandName(argv);
  if (named !== 'serve' && named !== 'migrate') {
    const [{ adminCommand }, { simulatorCommand }, { demoCommand }, { backupCommand, restoreCommand }] =
      await Promise.all([
        import('./cli/admin.ts'),
        import('./cli/simulate.ts'),
        import('./demo/command.ts'),
        import('./cli/backup.ts'),
      ]);
    program.addCommand(adminCommand());
    program.addCommand(backupCommand());
    program.addCommand(restoreCommand());
    program.addCommand(simulatorCommand());
    program.addCommand(demoCommand());
  }
  completeHelp(program);
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
