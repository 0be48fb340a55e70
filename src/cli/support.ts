// What every command of the `gatehouse` command line shares: the expected-failure type, opening
// the service's parts for a one-shot command, and printing its one JSON answer.
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { startServices, type Services } from '../services.ts';

export class CliError extends Error {
  override name = 'CliError';
}

/** Opens the service's parts for a one-shot command, runs it, closes them. */
export async function withServices<T>(command: string, run: (services: Services) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel }, process.stderr as never);
  const services = await startServices(config, logger, { role: 'client', command, runJobs: false });
  try {
    return await run(services);
  } finally {
    await services.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
