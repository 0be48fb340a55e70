// Provisioning for tests: accounts, facilities and credentials made with the admin operations,
// and tokens obtained from the real token endpoint.
import type { EntityId } from '../../src/ids.ts';
import { randomBytes } from 'node:crypto';
import * as admin from '../../src/tenancy/index.ts';
import { typedClient } from './client.ts';
import type { TestApp } from './harness.ts';

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
  const db = t.services.database.db;
  const account = await admin.createAccount(db, { name: options.name ?? 'Test Storage Co' });
  const facilities = [];
  for (let i = 0; i < (options.facilities ?? 1); i++) {
    facilities.push(
      await admin.createFacility(db, {
        accountId: account.id,
        name: `Facility ${i + 1}`,
        timeZone: options.timeZone ?? 'America/Denver',
        propertyNumber: `${account.id}-${100 + i}`,
        guid: options.guids === false ? null : uniqueGuid(),
      }),
    );
  }
  const pms = await admin.createApplication(db, { name: 'Test PMS' });
  const key = await admin.createAccountKey(db, {
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

/** An auction partner assigned to the given facility guids, and its token. */
export async function partnerToken(
  t: TestApp,
  clientType: string,
  facilityGuids: string[],
): Promise<{ token: string; clientId: string; clientSecret: string }> {
  const app = await admin.createApplication(t.services.database.db, {
    name: `Partner ${clientType}`,
    clientType,
    facilityGuids,
  });
  return {
    token: await token(t, {
      grant_type: 'client_credentials',
      client_id: app.clientId,
      client_secret: app.clientSecret,
    }),
    clientId: app.clientId,
    clientSecret: app.clientSecret,
  };
}

/** A facility's gateway controller credentials and token. */
export async function gatewayToken(
  t: TestApp,
  facilityId: EntityId,
): Promise<{ token: string; clientId: string; clientSecret: string }> {
  const gateway = await admin.createGatewayCredential(t.services.database.db, { facilityId });
  return {
    token: await token(t, {
      grant_type: 'client_credentials',
      client_id: gateway.clientId,
      client_secret: gateway.clientSecret,
    }),
    clientId: gateway.clientId,
    clientSecret: gateway.clientSecret,
  };
}

/** An operator application's token (scope admin). */
export async function operatorToken(t: TestApp): Promise<string> {
  const app = await admin.createApplication(t.services.database.db, { name: 'Operator console', operator: true });
  return token(t, { grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
