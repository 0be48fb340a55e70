// The in-memory directory of client ids that lets the token endpoint tell made-up client ids from
// real ones without a lookup each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientDirectory } from '../../src/auth/client-directory.ts';
import * as admin from '../../src/tenancy/index.ts';
import { appFixture } from '../helpers/harness.ts';

const t = appFixture();

describe('the directory of client ids', () => {
  it('knows the applications that exist, not made-up ids', async () => {
    const app = await admin.createApplication(t.services.database.db, { name: 'Known' });
    const directory = new ClientDirectory(t.services.database.db);
    assert.equal(await directory.knows(app.clientId), true);
    assert.equal(await directory.knows('gh_ci_madeup'), false);
  });

  it('learns a client created after it was read, at a miss once the interval has passed', async (context) => {
    // The directory's time moves when the test says so (only Date is mocked: the database's timers run).
    context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const directory = new ClientDirectory(t.services.database.db, 200);
    assert.equal(await directory.knows('gh_ci_madeup'), false);
    const app = await admin.createApplication(t.services.database.db, { name: 'Created later' });
    context.mock.timers.tick(199);
    assert.equal(await directory.knows(app.clientId), false, 'read again before the interval passed');
    context.mock.timers.tick(1);
    assert.equal(await directory.knows(app.clientId), true);
  });

  it('reads at most once per interval however many made-up ids come', async () => {
    let queries = 0;
    const counted = t.services.database.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        queries++; // once per query executed
        return args.result;
      },
    });
    const directory = new ClientDirectory(counted, 60_000);
    await Promise.all(Array.from({ length: 500 }, (_, i) => directory.knows(`gh_ci_madeup${i}`)));
    for (let i = 0; i < 500; i++) assert.equal(await directory.knows(`gh_ci_other${i}`), false);
    assert.equal(queries, 1, `one query for 1,000 made-up ids, not ${queries}`);
  });
});
