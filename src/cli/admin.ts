// `gatehouse admin …`: each command prints one JSON object on stdout and nothing else there;
// failures print one line on stderr and exit non-zero (see src/main.ts).
import os from 'node:os';
import { Command, Option } from 'commander';
import { systemClock } from '../clock.ts';
import {
  cancelMaintenanceWindow,
  createActionGroup,
  listActionGroups,
  listMaintenanceWindows,
  scheduleMaintenanceWindow,
} from '../facility-status/index.ts';
import { rotateSigningKey } from '../auth/index.ts';
import { ACCOUNT_KEY_SCOPES, DEFAULT_ACCOUNT_SCOPES } from '../http/caller.ts';
import { printJson, requireServiceData, tell, withDatabase } from './support.ts';
import { dataDirLayout } from '../db/data-dir.ts';
import { SCOPE_DESCRIPTIONS } from '../http/access.ts';
import { type AccessCodeRulesInput, createTenancy, type Tenancy } from '../tenancy/index.ts';
import type { Db } from '../db/tables.ts';
import { openAccessCodeVault, seedInitialState } from '../access-control/index.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createSandboxControllers, createSandboxes } from '../sandbox/index.ts';

const list = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

function run(command: string, action: (parts: { db: Db; tenancy: Tenancy }) => Promise<unknown>) {
  return async () =>
    printJson(
      await withDatabase(`admin ${command}`, (database) =>
        action({ db: database.db, tenancy: createTenancy(database.db) }),
      ),
    );
}

const items = async (rows: Promise<unknown[]>) => ({ items: await rows });

// A facility's gate-code rules (accessCodeRules), as flags of facility create and update; each checked,
// and named in a refusal, by the tenancy face (`accessCodeRules.minLength must be …`).
const CODE_CHARACTERS_FLAG = [
  '--code-characters <digits|alphanumeric>',
  'gate codes of digits only, or of letters and digits (default digits)',
] as const;
const CODE_MIN_LENGTH_FLAG = ['--code-min-length <n>', 'shortest gate code, 1–16 (default 4)'] as const;
const CODE_MAX_LENGTH_FLAG = ['--code-max-length <n>', 'longest gate code, 1–16 (default 10)'] as const;
interface CodeRuleFlags {
  codeCharacters?: string;
  codeMinLength?: string;
  codeMaxLength?: string;
}
const accessCodeRulesOf = (o: CodeRuleFlags): AccessCodeRulesInput => ({
  characters: o.codeCharacters,
  minLength: o.codeMinLength,
  maxLength: o.codeMaxLength,
});

/** The scopes an account key may hold, each with what it allows: from the one list the service checks. */
function scopesHelp(): string {
  const width = Math.max(...ACCOUNT_KEY_SCOPES.map((s) => s.length));
  const lines = ACCOUNT_KEY_SCOPES.map(
    (scope) =>
      `  ${scope.padEnd(width)}  ${DEFAULT_ACCOUNT_SCOPES.includes(scope) ? '(default) ' : ''}${SCOPE_DESCRIPTIONS[scope]}`,
  );
  return `\nScopes an account key may hold (--scopes, comma-separated):\n${lines.join('\n')}`;
}

const examples = (...lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;

export function adminCommand(): Command {
  const root = new Command('admin')
    .description('Administer accounts, facilities, applications and credentials (prints one JSON object).')
    .addHelpText(
      'after',
      `
Each command works on the database of DATA_DIR (or --data-dir, or DATABASE_URL) and names it on
stderr; with a running server on the embedded database it goes through that server's socket. A
data directory that holds no Gatehouse data is refused, never created.
${examples(
  'gatehouse admin account create --name "Acme Storage"',
  'gatehouse admin facility create --account 1 --name "Main St" --time-zone America/Denver',
  'gatehouse admin app create --name "Acme PMS"',
  'gatehouse admin account-key create --account 1 --app app_…',
  'gatehouse admin gateway create --facility 1',
  'gatehouse --data-dir /var/lib/gatehouse admin account list',
)}`,
    );

  const account = root.command('account').description('Accounts (operator companies).');
  account
    .command('create')
    .description('Create an account; prints its id.')
    .requiredOption('--name <name>', 'display name')
    .action((o: { name: string }) =>
      run('account create', async ({ tenancy }) => ({ id: (await tenancy.createAccount(o)).id }))(),
    );
  account
    .command('list')
    .description('List the accounts.')
    .action(run('account list', ({ tenancy }) => items(tenancy.listAccounts())));

  const facility = root.command('facility').description('Facilities of an account.');
  facility
    .command('create')
    .description('Create a facility of an account; prints its id and guid.')
    .addHelpText(
      'after',
      examples(
        'gatehouse admin facility create --account 1 --name "Main St" --time-zone America/Denver --guid FAC-0042',
      ),
    )
    .requiredOption('--account <accountId>', 'owning account id')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--time-zone <IANA>', 'e.g. America/Denver')
    .option('--property-number <n>', 'property number, unique within the service (PMS integrations link a site by it)')
    .option('--guid <guid>', 'auction facility identifier, ≤ 20 characters, unique')
    .option('--charity-enrolled', 'enrolled in the charity auction programme', false)
    .option('--address-line1 <text>', 'first street line of the address')
    .option('--address-line2 <text>', 'second street line (suite, building, …)')
    .option('--address-line <text>', 'deprecated: the first street line (--address-line1)')
    .option('--city <text>', 'city')
    .option('--state <text>', 'state or region')
    .option('--postal-code <text>', 'postal code')
    .option('--country <text>', 'country')
    .option(...CODE_CHARACTERS_FLAG)
    .option(...CODE_MIN_LENGTH_FLAG)
    .option(...CODE_MAX_LENGTH_FLAG)
    .action(
      (
        o: {
          account: string;
          name: string;
          timeZone: string;
          propertyNumber?: string;
          guid?: string;
          charityEnrolled: boolean;
          addressLine1?: string;
          addressLine2?: string;
          addressLine?: string;
          city?: string;
          state?: string;
          postalCode?: string;
          country?: string;
        } & CodeRuleFlags,
      ) =>
        run('facility create', async ({ tenancy }) => {
          const created = await tenancy.createFacility({
            accountId: o.account,
            name: o.name,
            timeZone: o.timeZone,
            propertyNumber: o.propertyNumber ?? null,
            guid: o.guid ?? null,
            charityEnrolled: o.charityEnrolled,
            addressLine1: o.addressLine1 ?? null,
            addressLine2: o.addressLine2 ?? null,
            addressLine: o.addressLine ?? null,
            city: o.city ?? null,
            state: o.state ?? null,
            postalCode: o.postalCode ?? null,
            country: o.country ?? null,
            accessCodeRules: accessCodeRulesOf(o),
          });
          return { id: created.id, guid: created.guid };
        })(),
    );
  facility
    .command('update')
    .description("Change a facility's settings (its gate-code rules); prints its id and accessCodeRules.")
    .addHelpText(
      'after',
      `
The gate-code rules apply to the codes a PMS sends from now on; the codes visitors hold are not
re-checked. A setting left out keeps its value.
${examples(
  'gatehouse admin facility update --facility 1 --code-characters alphanumeric --code-min-length 6 --code-max-length 8',
)}`,
    )
    .requiredOption('--facility <facilityId>', 'the facility')
    .option(...CODE_CHARACTERS_FLAG)
    .option(...CODE_MIN_LENGTH_FLAG)
    .option(...CODE_MAX_LENGTH_FLAG)
    .action((o: { facility: string } & CodeRuleFlags) =>
      run('facility update', async ({ tenancy }) => {
        const updated = await tenancy.updateFacility(o.facility, { accessCodeRules: accessCodeRulesOf(o) });
        return { id: updated.id, accessCodeRules: updated.accessCodeRules };
      })(),
    );
  facility
    .command('list')
    .description('List the facilities (of one account with --account).')
    .option('--account <accountId>', 'only this account')
    .action((o: { account?: string }) =>
      run('facility list', ({ tenancy }) => items(tenancy.listFacilities(o.account)))(),
    );

  const app = root.command('app').description('Applications (OAuth clients): PMS, auction partners, operators.');
  app
    .command('create')
    .description('Create an application; prints its clientId and clientSecret (the secret is shown once).')
    .addHelpText(
      'after',
      examples(
        'gatehouse admin app create --name "Acme PMS"',
        'gatehouse admin app create --name "Bidders Inc" --client-type bidders --facility-guids FAC-0042',
        'gatehouse admin app create --name "Support desk" --operator',
      ),
    )
    .requiredOption('--name <name>', 'display name')
    .option('--client-type <type>', 'auction partner client type')
    .option('--facility-guids <g1,g2>', 'facility guids the partner may auction', list)
    .addOption(new Option('--operator', 'an operator application (scope admin)').default(false))
    .action((o: { name: string; clientType?: string; facilityGuids?: string[]; operator: boolean }) =>
      run('app create', async ({ tenancy }) => {
        const created = await tenancy.createApplication({
          name: o.name,
          clientType: o.clientType ?? null,
          facilityGuids: o.facilityGuids,
          operator: o.operator,
        });
        return { clientId: created.clientId, clientSecret: created.clientSecret };
      })(),
    );
  app
    .command('list')
    .description('List the applications (never their secrets).')
    .action(run('app list', ({ tenancy }) => items(tenancy.listApplications())));
  app
    .command('revoke')
    .description('Revoke an application: its tokens stop working within seconds.')
    .requiredOption('--client-id <clientId>', 'the application')
    .action((o: { clientId: string }) => run('app revoke', ({ tenancy }) => tenancy.revokeApplication(o.clientId))());

  const key = root
    .command('account-key')
    .description("Account API keys: an account's authorisation of an application.");
  key
    .command('create')
    .description('Authorise an application for an account; prints the apiKey and apiSecret (shown once).')
    .requiredOption('--account <accountId>', 'the account')
    .requiredOption('--app <clientId>', 'the application client id')
    .option('--scopes <s1,s2>', `the key's scopes (default ${DEFAULT_ACCOUNT_SCOPES.join(',')}; see below)`, list)
    .addHelpText(
      'after',
      `${scopesHelp()}
${examples(
  'gatehouse admin account-key create --account 1 --app app_…',
  `gatehouse admin account-key create --account 1 --app app_… --scopes ${ACCOUNT_KEY_SCOPES.join(',')}`,
)}`,
    )
    .action((o: { account: string; app: string; scopes?: string[] }) =>
      run('account-key create', async ({ tenancy }) => {
        const created = await tenancy.createAccountKey({ accountId: o.account, clientId: o.app, scopes: o.scopes });
        return { apiKey: created.apiKey, apiSecret: created.apiSecret };
      })(),
    );
  key
    .command('list')
    .description('List the account keys (of one account with --account), never their secrets.')
    .option('--account <accountId>', 'only this account')
    .action((o: { account?: string }) =>
      run('account-key list', ({ tenancy }) => items(tenancy.listAccountKeys(o.account)))(),
    );
  key
    .command('revoke')
    .description('Revoke an account key: its tokens stop working within seconds.')
    .requiredOption('--api-key <apiKey>', 'the key')
    .action((o: { apiKey: string }) =>
      run('account-key revoke', ({ tenancy }) => tenancy.revokeAccountKey(o.apiKey))(),
    );

  const gateway = root.command('gateway').description('Gateway controller credentials of a facility.');
  gateway
    .command('create')
    .description("Create a facility's gateway credentials; prints clientId and clientSecret (shown once).")
    .addHelpText('after', examples('gatehouse admin gateway create --facility 1'))
    .requiredOption('--facility <facilityId>', 'the facility')
    .action((o: { facility: string }) =>
      run('gateway create', async ({ tenancy }) => {
        const created = await tenancy.createGatewayCredential({ facilityId: o.facility });
        return { clientId: created.clientId, clientSecret: created.clientSecret };
      })(),
    );
  gateway
    .command('list')
    .description('List the gateway credentials (of one facility with --facility), never their secrets.')
    .option('--facility <facilityId>', 'only this facility')
    .action((o: { facility?: string }) =>
      run('gateway list', ({ tenancy }) => items(tenancy.listGatewayCredentials(o.facility)))(),
    );
  gateway
    .command('revoke')
    .description('Revoke gateway credentials: the controller can no longer get a token.')
    .requiredOption('--client-id <clientId>', 'the credentials')
    .action((o: { clientId: string }) =>
      run('gateway revoke', ({ tenancy }) => tenancy.revokeGatewayCredential(o.clientId))(),
    );

  const actionGroup = root
    .command('action-group')
    .description('Action groups of a facility: what a remote open, hold or close runs (a gate, a set of doors).');
  actionGroup
    .command('create')
    .description('Add an action group to a facility.')
    .requiredOption('--facility <facilityId>', 'the facility')
    .requiredOption('--name <name>', '1–100 characters, unique within the facility')
    .option('--scheduled', 'not triggered by hand (left out of …/actiongroups/manual)', false)
    .action((o: { facility: string; name: string; scheduled: boolean }) =>
      run('action-group create', ({ db }) =>
        createActionGroup(db, { facilityId: o.facility, name: o.name, isManual: !o.scheduled }),
      )(),
    );
  actionGroup
    .command('list')
    .description("List a facility's action groups.")
    .requiredOption('--facility <facilityId>', 'the facility')
    .action((o: { facility: string }) =>
      run('action-group list', ({ db }) => items(listActionGroups(db, o.facility)))(),
    );

  maintenanceCommands(root);
  sandboxCommands(root);

  const keys = root.command('keys').description('Token signing keys.');
  keys
    .command('rotate')
    .description('Add a new signing key in DATA_DIR/keys: it signs after the next start; earlier keys keep verifying.')
    .action(async () => {
      const { loadConfig } = await import('../config.ts');
      const config = loadConfig();
      requireServiceData(config);
      tell(`signing keys: ${dataDirLayout(config.dataDir).keysDir}`);
      printJson(await rotateSigningKey(config.dataDir));
    });

  return root;
}

/** Who the command line records as scheduling or cancelling a window: the user who ran it. */
function cliActor(): string {
  try {
    return `cli:${os.userInfo().username}`;
  } catch {
    return 'cli';
  }
}

/** `gatehouse admin maintenance schedule|list|cancel`: a facility's maintenance windows (as the admin routes). */
function maintenanceCommands(root: Command): void {
  const maintenance = root
    .command('maintenance')
    .description(
      "Maintenance windows of a facility: while one is underway the status list's gateway and device parts say maintenance.",
    );
  maintenance
    .command('schedule')
    .description('Schedule a window (at most 7 days); prints it.')
    .addHelpText(
      'after',
      examples(
        'gatehouse admin maintenance schedule --facility 1 --ends-at 2026-11-27T09:30:00Z --reason "Keypad firmware"',
        'gatehouse admin maintenance schedule --facility 1 --starts-at 2026-11-28T02:00:00-07:00 --ends-at 2026-11-28T03:00:00-07:00',
      ),
    )
    .requiredOption('--facility <facilityId>', 'the facility')
    .option('--starts-at <date-time>', 'ISO 8601 with an offset (default: now)')
    .requiredOption('--ends-at <date-time>', 'ISO 8601 with an offset')
    .option('--reason <text>', 'shown in the status messages, ≤ 200 characters')
    .action((o: { facility: string; startsAt?: string; endsAt: string; reason?: string }) =>
      run('maintenance schedule', ({ db }) =>
        scheduleMaintenanceWindow(
          { db, clock: systemClock },
          {
            facilityId: o.facility,
            startsAt: o.startsAt ?? new Date().toISOString(),
            endsAt: o.endsAt,
            reason: o.reason,
            scheduledBy: cliActor(),
          },
        ),
      )(),
    );
  maintenance
    .command('list')
    .description("List a facility's windows underway and to come (every one with --all, newest first).")
    .requiredOption('--facility <facilityId>', 'the facility')
    .option('--all', 'ended and cancelled windows too', false)
    .option('--limit <n>', 'at most this many (1–1000)', '100')
    .option('--after <windowId>', 'continue after this window (the last id of the list before)')
    .action((o: { facility: string; all: boolean; limit: string; after?: string }) =>
      run('maintenance list', ({ db }) =>
        items(
          listMaintenanceWindows({ db, clock: systemClock }, o.facility, {
            include: o.all ? 'all' : 'upcoming',
            limit: o.limit,
            after: o.after,
          }),
        ),
      )(),
    );
  maintenance
    .command('cancel')
    .description('Cancel a window: one to come never starts, one underway ends now; prints it.')
    .requiredOption('--facility <facilityId>', 'the facility')
    .requiredOption('--window <windowId>', 'the window')
    .action((o: { facility: string; window: string }) =>
      run('maintenance cancel', ({ db }) =>
        cancelMaintenanceWindow({ db, clock: systemClock }, o.facility, o.window, cliActor()),
      )(),
    );
}

/** `gatehouse admin sandboxes create|list|delete`: an account's sandboxes (as the routes /admin/accounts/{id}/sandboxes). */
function sandboxCommands(root: Command): void {
  const sandboxes = root
    .command('sandboxes')
    .description("An account's sandboxes: accounts of their own for an integrator, seeded on request (at most 5).");
  sandboxes
    .command('create')
    .description('Create a sandbox of an account for one of its PMS applications; prints it with its credentials.')
    .addHelpText(
      'after',
      examples('gatehouse admin sandboxes create --account 1 --app app_… --name "Acme tests" --facilities small,large'),
    )
    .requiredOption('--account <accountId>', 'the owning (production) account')
    .requiredOption('--app <clientId>', "the PMS application the sandbox's account key is bound to")
    .requiredOption('--name <name>', 'display name')
    .option('--facilities <sizes>', 'facilities to seed, comma-separated: small, medium, large', '')
    .option('--scopes <scopes>', "the sandbox key's scopes, comma-separated (default: an account key's defaults)")
    .action((o: { account: string; app: string; name: string; facilities: string; scopes?: string }) =>
      run('sandboxes create', async ({ db }) =>
        (await sandboxFace(db)).create({
          ownerAccountId: o.account,
          clientId: o.app,
          name: o.name,
          facilities: list(o.facilities),
          scopes: o.scopes === undefined ? undefined : list(o.scopes),
        }),
      )(),
    );
  sandboxes
    .command('list')
    .description("List an account's sandboxes, newest first.")
    .requiredOption('--account <accountId>', 'the owning account')
    .action((o: { account: string }) =>
      run('sandboxes list', async ({ db }) => items((await sandboxFace(db)).list(o.account)))(),
    );
  sandboxes
    .command('delete')
    .description("Delete one of an account's sandboxes with every row it has.")
    .requiredOption('--account <accountId>', 'the owning account')
    .requiredOption('--sandbox <sandboxId>', 'the sandbox')
    .action((o: { account: string; sandbox: string }) =>
      run('sandboxes delete', async ({ db }) => {
        await (await sandboxFace(db)).delete(o.account, o.sandbox);
        return { id: Number(o.sandbox), deleted: true };
      })(),
    );
}

/**
 * The sandbox face over a bare database (no service built): tenancy's operations, and the seeding of
 * access control with this data directory's gate-code key (the server made it at its first start).
 */
async function sandboxFace(db: Db) {
  const config = loadConfig();
  const vault = await openAccessCodeVault(config, db);
  return createSandboxes({
    database: { db },
    clock: systemClock,
    logger: createLogger({ logLevel: 'warn' }, process.stderr as never),
    tenancyIn: createTenancy,
    accessControl: { seedInitialState: (trx, facility, counts) => seedInitialState({ vault }, trx, facility, counts) },
    // No job queue here: the server's claim (every minute) starts the new controllers.
    controllers: createSandboxControllers({
      database: { db },
      clock: systemClock,
      logger: createLogger({ logLevel: 'warn' }, process.stderr as never),
      jobs: { send: async () => null },
      sealer: vault.sealerFor('sandbox controller secret'),
      tenancyIn: createTenancy,
    }),
  });
}
