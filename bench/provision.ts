// What the benchmarks provision before they measure, straight through the tenancy operations on the
// bench's database: one account with its facilities and their gateway credentials, a PMS
// application with an account key, and whatever else a benchmark adds while the database is open.
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createTenancy, type Tenancy } from '../src/tenancy/index.ts';
import { inParallel } from './load.ts';

export async function provisionBenchAccount<T = undefined>(
  env: Record<string, string>,
  options: { facilities: number; timeZone: string },
  more?: (tenancy: Tenancy) => Promise<T>,
) {
  const config = loadConfig({ ...process.env, ...env, LOG_LEVEL: 'warn' });
  const database = await openDatabase(config, { role: 'owner', command: 'bench' });
  try {
    await migrate(database.pool);
    const tenancy = createTenancy(database.db);
    const account = await tenancy.createAccount({ name: 'Bench Storage' });
    const app = await tenancy.createApplication({ name: 'Bench PMS' });
    const key = await tenancy.createAccountKey({ accountId: account.id, clientId: app.clientId });
    const facilities = await inParallel([...Array(options.facilities).keys()], 4, async (i) => {
      const facility = await tenancy.createFacility({
        accountId: account.id,
        name: `Site ${i + 1}`,
        timeZone: options.timeZone,
      });
      return { id: facility.id, gateway: await tenancy.createGatewayCredential({ facilityId: facility.id }) };
    });
    return { accountId: account.id, app, key, facilities, more: (await more?.(tenancy)) as T };
  } finally {
    await database.close();
  }
}
