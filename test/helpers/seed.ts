// Provisioning for tests and benchmarks that run the real server process: the account is made
// in this process, on the same database and data directory (so the server verifies its token
// with the same signing key), before the server starts (the embedded database has one owner).
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startServices } from '../../src/services.ts';
import { LogCapture, type TestApp } from './harness.ts';
import { provisionAccount, type ProvisionedAccount } from './tenants.ts';

/** Runs `work` against the app in this process on that database, then closes it. */
export async function seed<T>(env: Record<string, string>, work: (t: TestApp) => Promise<T>): Promise<T> {
  const logs = new LogCapture();
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const services = await startServices(config, createLogger(config, logs), {
    role: 'owner',
    command: 'seed',
    runJobs: false,
  });
  const app = await buildApp(services);
  try {
    await app.ready();
    return await work({ app, services, config, logs, close: async () => {} });
  } finally {
    await app.close();
    await services.close();
  }
}

export function seedAccount(
  env: Record<string, string>,
  options: Parameters<typeof provisionAccount>[1] = {},
): Promise<ProvisionedAccount> {
  return seed(env, (t) => provisionAccount(t, options));
}
