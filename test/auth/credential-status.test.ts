// The guard's knowledge of revocations (issue 25: nothing per request scales with the fleet): one
// statement every RECHECK_MS per instance, however many credentials call; a revoked gateway, an
// account key, and an application (its own tokens and its account keys') are refused after it.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { CredentialStatus, RECHECK_MS } from '../../src/auth/credential-status.ts';
import type { Principal } from '../../src/http/caller.ts';
import { ManualClock, startTestApp, type TestApp } from '../helpers/harness.ts';
import { provisionAccount } from '../helpers/tenants.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ runJobs: false });
});
after(() => t.close());

it('reads revocations once per re-check for every caller, and refuses what was revoked after the next', async () => {
  const { tenancy } = t.services;
  const account = await provisionAccount(t, { facilities: 3 });
  const gateways = await Promise.all(
    account.facilities.map((f) => tenancy.createGatewayCredential({ facilityId: f.id })),
  );
  const partner = await tenancy.createApplication({ name: 'Partner', facilityGuids: [] });
  const ids = async (
    table: 'gateway_credentials' | 'account_credentials' | 'applications',
    column: string,
    value: string,
  ) =>
    (await t.services.database.pool.query<{ id: string }>(`select id from ${table} where ${column} = $1`, [value]))
      .rows[0]!.id;
  const gatewayPrincipals = await Promise.all(
    gateways.map(
      async (g): Promise<Principal> =>
        ({ kind: 'gateway', credentialId: await ids('gateway_credentials', 'client_id', g.clientId) }) as Principal,
    ),
  );
  const keyPrincipal = {
    kind: 'account',
    credentialId: await ids('account_credentials', 'api_key', account.key.apiKey),
  } as Principal;
  const partnerPrincipal = {
    kind: 'partner',
    credentialId: await ids('applications', 'client_id', partner.clientId),
  } as Principal;

  let statements = 0;
  const counting: KyselyPlugin = {
    transformQuery: (args) => {
      statements++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const clock = new ManualClock();
  const status = new CredentialStatus(t.services.database.db.withPlugin(counting), clock);
  const all = [...gatewayPrincipals, keyPrincipal, partnerPrincipal];
  const check = () => Promise.all(all.map((p) => status.isActive(p)));

  assert.deepEqual(await check(), [true, true, true, true, true]);
  assert.deepEqual(await Promise.all([check(), check(), check()]), [
    [true, true, true, true, true],
    [true, true, true, true, true],
    [true, true, true, true, true],
  ]);
  assert.equal(statements, 1, 'one statement for every caller within the re-check');

  await tenancy.revokeGatewayCredential(gateways[1]!.clientId);
  await tenancy.revokeApplication(account.pms.clientId); // ends its account keys
  await tenancy.revokeApplication(partner.clientId);
  clock.advance(RECHECK_MS - 1);
  assert.deepEqual(await check(), [true, true, true, true, true], 'trusted until the re-check');
  clock.advance(1);
  assert.deepEqual(await check(), [true, false, true, false, false]);
  assert.equal(statements, 2);
});
