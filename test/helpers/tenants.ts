// Provisioning for tests: accounts, facilities and credentials made with the admin operations,
// and tokens obtained from the real token endpoint.
import type { EntityId } from '../../src/ids.ts';
import { randomBytes } from 'node:crypto';
import { typedClient } from './client.ts';
import { type AppFixtureOptions, appFixture, type TestApp } from './harness.ts';

/** POST /auth/token with a form, as an OAuth client sends it, through the typed client. */
export async function requestToken(
  t: TestApp,
  form: Record<string, string>,
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const { data, error, response } = await typedClient(t).POST('/auth/token', {
    body: form,
    bodySerializer: (fields) => new URLSearchParams(fields as Record<string, string>).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  return { status: response.status, body: data ?? error, headers: Object.fromEntries(response.headers) };
}

async function token(t: TestApp, form: Record<string, string>): Promise<string> {
  const { status, body } = await requestToken(t, form);
  if (status !== 200) throw new Error(`token request failed: ${status} ${JSON.stringify(body)}`);
  return body.access_token;
}

export const uniqueGuid = (prefix = 'FAC') => `${prefix}-${randomBytes(4).toString('hex')}`.slice(0, 20);

export interface ProvisionedAccount {
  accountId: EntityId;
  facilities: { id: EntityId; guid: string | null; name: string; timeZone: string; propertyNumber: string | null }[];
  pms: { clientId: string; clientSecret: string };
  key: { apiKey: string; apiSecret: string };
  /** An access token of the PMS for this account (password grant; default account scopes). */
  token: string;
  refreshToken: string;
}

/** An account with facilities, a PMS application, an account key and a token for it. */
export async function provisionAccount(
  t: TestApp,
  options: { facilities?: number; timeZone?: string; guids?: boolean; scopes?: string[]; name?: string } = {},
): Promise<ProvisionedAccount> {
  const tenancy = t.services.tenancy;
  const account = await tenancy.createAccount({ name: options.name ?? 'Test Storage Co' });
  const facilities = [];
  for (let i = 0; i < (options.facilities ?? 1); i++) {
    facilities.push(
      await tenancy.createFacility({
        accountId: account.id,
        name: `Facility ${i + 1}`,
        timeZone: options.timeZone ?? 'America/Denver',
        propertyNumber: `${account.id}-${100 + i}`,
        guid: options.guids === false ? null : uniqueGuid(),
      }),
    );
  }
  const pms = await tenancy.createApplication({ name: 'Test PMS' });
  const key = await tenancy.createAccountKey({
    accountId: account.id,
    clientId: pms.clientId,
    scopes: options.scopes,
  });
  const { status, body } = await requestToken(t, {
    grant_type: 'password',
    client_id: pms.clientId,
    client_secret: pms.clientSecret,
    username: key.apiKey,
    password: key.apiSecret,
  });
  if (status !== 200) throw new Error(`password grant failed: ${status} ${JSON.stringify(body)}`);
  return {
    accountId: account.id,
    facilities: facilities.map((f) => ({
      id: f.id,
      guid: f.guid,
      name: f.name,
      timeZone: f.timeZone,
      propertyNumber: f.propertyNumber,
    })),
    pms: { clientId: pms.clientId, clientSecret: pms.clientSecret },
    key: { apiKey: key.apiKey, apiSecret: key.apiSecret },
    token: body.access_token,
    refreshToken: body.refresh_token,
  };
}

interface Client {
  token: string;
  clientId: string;
  clientSecret: string;
}

/** A client's token (client credentials grant), with its credentials. */
async function withToken(t: TestApp, client: { clientId: string; clientSecret: string }): Promise<Client> {
  const { clientId, clientSecret } = client;
  return {
    token: await token(t, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    clientId,
    clientSecret,
  };
}

/** An auction partner assigned to the given facility guids, and its token. */
export async function partnerToken(t: TestApp, clientType: string, facilityGuids: string[]): Promise<Client> {
  const partner = { name: `Partner ${clientType}`, clientType, facilityGuids };
  return withToken(t, await t.services.tenancy.createApplication(partner));
}

/** A facility's gateway controller credentials and token. */
export async function gatewayToken(t: TestApp, facilityId: EntityId): Promise<Client> {
  return withToken(t, await t.services.tenancy.createGatewayCredential({ facilityId }));
}

/** An operator application's token (scope admin). */
export async function operatorToken(t: TestApp): Promise<string> {
  const operator = await t.services.tenancy.createApplication({ name: 'Operator console', operator: true });
  return (await withToken(t, operator)).token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface TenantFixtureOptions extends AppFixtureOptions {
  /** The account's facilities (1 by default), their time zone, and more `provisionAccount` options. */
  facilities?: number;
  timeZone?: string;
  /** A controller's token for each facility. */
  controllers?: boolean;
  /** An operator's token (scope admin). */
  operator?: boolean;
}

export interface TenantFixture {
  /** The file's app (see appFixture). */
  readonly t: TestApp;
  /** An account with its facilities, its PMS and its token. */
  readonly account: ProvisionedAccount;
  /** The account's first facility. */
  readonly facilityId: EntityId;
  /** The controllers' tokens, one per facility in the account's order (`controllers: true`). */
  readonly controllers: string[];
  /** An operator's token (`operator: true`). */
  readonly operator: string;
}

/**
 * The usual set-up of a test file: the app, an account with facilities, and (when asked) its
 * controllers' and an operator's tokens; made in the app fixture's before hook, closed after.
 *
 *   const site = tenantFixture({ facilities: 2, controllers: true });
 *   const { t } = site;
 *   it('…', async () => { await typedClient(t, site.account.token).GET('/facilities'); });
 */
export function tenantFixture(options: TenantFixtureOptions = {}): TenantFixture {
  const { facilities, timeZone, controllers, operator, started, ...appOptions } = options;
  let account: ProvisionedAccount | undefined;
  let controllerTokens: string[] | undefined;
  let operatorTokenOf: string | undefined;
  const t = appFixture({
    ...appOptions,
    async started(t) {
      account = await provisionAccount(t, { facilities, ...(timeZone ? { timeZone } : {}) });
      if (controllers) {
        controllerTokens = [];
        for (const facility of account.facilities) controllerTokens.push((await gatewayToken(t, facility.id)).token);
      }
      if (operator) operatorTokenOf = await operatorToken(t);
      await started?.(t);
    },
  });
  const given = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`the tenant fixture has no ${what} (not asked for, or used before its before hook)`);
    return value;
  };
  return {
    t,
    get account() {
      return given(account, 'account');
    },
    get facilityId() {
      return given(account, 'account').facilities[0]!.id;
    },
    get controllers() {
      return given(controllerTokens, "controllers' tokens");
    },
    get operator() {
      return given(operatorTokenOf, "operator's token");
    },
  };
}
