// The OAuth 2.0 grants of POST /auth/token (RFC 6749): password (an account's API key and
// secret, for a PMS application), client_credentials (a partner, operator or gateway acting as
// itself) and refresh_token (rotating; a reused token revokes its family).
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/tables.ts';
import type { Scope } from '../http/access.ts';
import { GATEWAY_SCOPES, OPERATOR_SCOPES, PARTNER_SCOPES, isScope } from '../http/caller.ts';
import { SecretCheckLineFull, type SecretCheckLine } from './secret-checks.ts';
import { checkSecret, randomToken, type SecretCheck, sha256 } from './secrets.ts';
import type { PrincipalWithoutToken, TokenService } from './tokens.ts';
import type { EntityId } from '../ids.ts';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  // RFC 6749 §4.1.2.1's code for an overloaded server; with 503 and Retry-After.
  | 'temporarily_unavailable';

export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: OAuthErrorCode,
    description: string,
    /** Extra response headers (Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export interface TokenRequest {
  grantType: string;
  clientId: string;
  clientSecret: string;
  username?: string;
  password?: string;
  refreshToken?: string;
  scope?: string;
}

export interface TokenResponse {
  token_type: 'Bearer';
  access_token: string;
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

type Client =
  | {
      kind: 'application';
      id: string;
      clientId: string;
      clientType: string | null;
      facilityGuids: string[];
      isOperator: boolean;
    }
  | { kind: 'gateway'; id: string; clientId: string; facilityId: EntityId; accountId: EntityId; sandbox: boolean };

/** Told when a sandbox's credential gets a token (its last use: src/sandbox/); never fails the grant. */
export type SandboxTokenIssued = (
  accountId: EntityId,
  credential: { kind: 'account' | 'gateway'; credentialId: string },
) => Promise<void>;

/** Its status is the token route's to choose (401 with HTTP Basic, else 400: routes/token.ts). */
const invalidClient = () => new OAuthError(401, 'invalid_client', 'Client authentication failed.');
const invalidGrant = (description: string) => new OAuthError(400, 'invalid_grant', description);
const overloaded = () =>
  new OAuthError(503, 'temporarily_unavailable', 'Too many token requests are being checked; retry in a second.', {
    'retry-after': '1',
  });

export class Grants {
  constructor(
    private readonly db: Db,
    private readonly tokens: TokenService,
    private readonly refreshTtlSeconds: number,
    private readonly secretChecks: SecretCheckLine,
    private readonly sandboxTokenIssued: SandboxTokenIssued = async () => {},
  ) {}

  /**
   * Checks `secret` against the stored hash of `holder` (a client id, an account API key). A hash of
   * an earlier version (scrypt, ~60 ms of a core) is checked in the holder's turn of the line of
   * secret checks — no room to wait is a 503 — and, once matched, replaced in `table` by today's
   * hash (compare-and-set: a concurrent change of the secret wins).
   */
  private async check(
    secret: string,
    stored: string | null | undefined,
    holder: string,
    row: { table: 'applications' | 'gateway_credentials' | 'account_credentials'; id: string } | null,
  ): Promise<boolean> {
    const result: SecretCheck = await checkSecret(secret, stored, (slow) =>
      this.secretChecks.run(holder, slow).catch((error: unknown) => {
        throw error instanceof SecretCheckLineFull ? overloaded() : error;
      }),
    );
    if (result.upgrade && row && stored) {
      // A failed upgrade does not fail the request: it is tried again on the next use.
      await this.db
        .updateTable(row.table)
        .set({ secret_hash: result.upgrade })
        .where('id', '=', row.id)
        .where('secret_hash', '=', stored)
        .execute()
        .catch(() => undefined);
    }
    return result.ok;
  }

  /**
   * The client a token request names, authenticated by its secret: an application, or a gateway
   * controller. An unknown client id costs what a wrong secret costs.
   */
  async authenticateClient(clientId: string, clientSecret: string): Promise<Client> {
    const app = await this.db
      .selectFrom('applications')
      .select(['id', 'client_id', 'secret_hash', 'client_type', 'facility_guids', 'is_operator', 'revoked_at'])
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (app) {
      const row = { table: 'applications', id: app.id } as const;
      if (!(await this.check(clientSecret, app.secret_hash, clientId, row)) || app.revoked_at) throw invalidClient();
      return {
        kind: 'application',
        id: app.id,
        clientId: app.client_id,
        clientType: app.client_type,
        facilityGuids: app.facility_guids,
        isOperator: app.is_operator,
      };
    }
    const gateway = await this.db
      .selectFrom('gateway_credentials as g')
      .innerJoin('facilities as f', 'f.id', 'g.facility_id')
      .innerJoin('accounts as a', 'a.id', 'f.account_id')
      .select(['g.id', 'g.client_id', 'g.secret_hash', 'g.revoked_at', 'g.facility_id', 'f.account_id', 'a.sandbox_of'])
      .where('g.client_id', '=', clientId)
      .executeTakeFirst();
    const row = gateway ? ({ table: 'gateway_credentials', id: gateway.id } as const) : null;
    if (!(await this.check(clientSecret, gateway?.secret_hash, clientId, row)) || !gateway || gateway.revoked_at)
      throw invalidClient();
    return {
      kind: 'gateway',
      id: gateway.id,
      clientId: gateway.client_id,
      facilityId: gateway.facility_id,
      accountId: gateway.account_id,
      sandbox: gateway.sandbox_of !== null,
    };
  }

  async grant(request: TokenRequest): Promise<TokenResponse> {
    if (!['password', 'client_credentials', 'refresh_token'].includes(request.grantType)) {
      throw new OAuthError(
        400,
        'unsupported_grant_type',
        'grant_type must be password, client_credentials or refresh_token.',
      );
    }
    const client = await this.authenticateClient(request.clientId, request.clientSecret);
    const requested = parseScope(request.scope);
    switch (request.grantType) {
      case 'password':
        return this.passwordGrant(client, request, requested);
      case 'client_credentials':
        return this.clientCredentialsGrant(client, requested);
      default:
        return this.refreshGrant(client, request, requested);
    }
  }

  private async passwordGrant(
    client: Client,
    request: TokenRequest,
    requested: Scope[] | null,
  ): Promise<TokenResponse> {
    if (client.kind !== 'application' || client.isOperator)
      throw new OAuthError(400, 'unauthorized_client', 'This client may not use the password grant.');
    if (!request.username || !request.password)
      throw new OAuthError(400, 'invalid_request', 'username and password are required for the password grant.');
    const credential = await this.db
      .selectFrom('account_credentials as c')
      .innerJoin('accounts as a', 'a.id', 'c.account_id')
      .select(['c.id', 'c.secret_hash', 'c.account_id', 'c.application_id', 'c.scopes', 'c.revoked_at', 'a.sandbox_of'])
      .where('c.api_key', '=', request.username)
      .executeTakeFirst();
    const row = credential ? ({ table: 'account_credentials', id: credential.id } as const) : null;
    const valid = await this.check(request.password, credential?.secret_hash, client.clientId, row);
    // Another application's account key is refused exactly like a wrong one.
    if (!credential || !valid || credential.revoked_at || credential.application_id !== client.id)
      throw invalidGrant('The account API key or secret is not valid for this client.');
    const principal = accountPrincipal(credential, client, narrow(credential.scopes.filter(isScope), requested));
    const response = await this.respond(principal, { kind: 'account', id: credential.id, familyId: randomUUID() });
    await this.used(principal);
    return response;
  }

  private async clientCredentialsGrant(client: Client, requested: Scope[] | null): Promise<TokenResponse> {
    const principal = clientPrincipal(client, requested);
    if (!principal)
      throw new OAuthError(
        400,
        'unauthorized_client',
        'This client acts for accounts: use the password grant with an account API key.',
      );
    const response = await this.respond(principal, null);
    await this.used(principal);
    return response;
  }

  private async refreshGrant(client: Client, request: TokenRequest, requested: Scope[] | null): Promise<TokenResponse> {
    if (!request.refreshToken) throw new OAuthError(400, 'invalid_request', 'refresh_token is required.');
    if (client.kind !== 'application') throw invalidGrant('The refresh token is not valid.');
    const now = new Date();
    const outcome = await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('refresh_tokens')
        .selectAll()
        .where('token_hash', '=', sha256(request.refreshToken!))
        .forUpdate()
        .executeTakeFirst();
      if (!row) return { ok: false, reason: 'The refresh token is not valid.' } as const;
      const credential = await trx
        .selectFrom('account_credentials as c')
        .innerJoin('accounts as a', 'a.id', 'c.account_id')
        .select(['c.id', 'c.account_id', 'c.application_id', 'c.scopes', 'c.revoked_at', 'a.sandbox_of'])
        .where('c.id', '=', row.credential_id)
        .executeTakeFirst();
      if (!credential || credential.application_id !== client.id)
        return { ok: false, reason: 'The refresh token is not valid.' } as const;
      if (row.used_at) {
        // Replay of a rotated token: whoever holds the family is suspect. End it (and commit that).
        await trx
          .updateTable('refresh_tokens')
          .set({ revoked_at: now })
          .where('family_id', '=', row.family_id)
          .where('revoked_at', 'is', null)
          .execute();
        return { ok: false, reason: 'The refresh token was already used; its family has been revoked.' } as const;
      }
      if (row.revoked_at || row.expires_at < now || credential.revoked_at)
        return { ok: false, reason: 'The refresh token has expired or been revoked.' } as const;
      await trx.updateTable('refresh_tokens').set({ used_at: now }).where('id', '=', row.id).execute();
      const principal = accountPrincipal(credential, client, narrow(row.scopes.filter(isScope), requested));
      return {
        ok: true,
        principal,
        response: await this.respond(principal, { kind: 'account', id: credential.id, familyId: row.family_id }, trx),
      } as const;
    });
    if (!outcome.ok) throw invalidGrant(outcome.reason);
    // After the transaction: the write of a last use waits on no connection while one is held.
    await this.used(outcome.principal);
    return outcome.response;
  }

  /**
   * A sandbox is kept 30 days after its last use, and getting a token is a use: the sandbox face is told
   * (it writes at most once a minute per sandbox). A failure to record it never fails the grant.
   */
  private async used(principal: PrincipalWithoutToken): Promise<void> {
    if ((principal.kind === 'account' || principal.kind === 'gateway') && principal.sandbox)
      await this.sandboxTokenIssued(principal.accountId, principal).catch(() => undefined);
  }

  private async respond(
    principal: PrincipalWithoutToken,
    refresh: { kind: 'account'; id: string; familyId: string } | null,
    db: Db = this.db,
  ): Promise<TokenResponse> {
    const { accessToken, expiresIn } = await this.tokens.issue(principal);
    const response: TokenResponse = {
      token_type: 'Bearer',
      access_token: accessToken,
      expires_in: expiresIn,
      scope: principal.scopes.join(' '),
    };
    if (refresh) {
      const refreshToken = randomToken('gh_rt');
      await db
        .insertInto('refresh_tokens')
        .values({
          family_id: refresh.familyId,
          token_hash: sha256(refreshToken),
          credential_kind: refresh.kind,
          credential_id: refresh.id,
          scopes: principal.scopes,
          expires_at: new Date(Date.now() + this.refreshTtlSeconds * 1000),
        })
        .execute();
      response.refresh_token = refreshToken;
    }
    return response;
  }
}

function parseScope(scope: string | undefined): Scope[] | null {
  if (scope === undefined || scope.trim() === '') return null;
  const names = scope.trim().split(/\s+/);
  if (!names.every(isScope)) throw new OAuthError(400, 'invalid_scope', 'scope names an unknown scope.');
  return names as Scope[];
}

/** The requested scopes, which must be a subset of what the credential allows. */
function narrow(allowed: Scope[], requested: Scope[] | null): Scope[] {
  if (requested === null) return allowed;
  if (!requested.every((s) => allowed.includes(s)))
    throw new OAuthError(400, 'invalid_scope', 'scope asks for more than this credential allows.');
  return [...new Set(requested)];
}

/** Who a client speaks for by itself (client_credentials): a gateway, the operator, a partner; null for a PMS. */
function clientPrincipal(client: Client, requested: Scope[] | null): PrincipalWithoutToken | null {
  const base = { credentialId: client.id, clientId: client.clientId };
  if (client.kind === 'gateway')
    return {
      ...base,
      kind: 'gateway',
      accountId: client.accountId,
      facilityId: client.facilityId,
      ...(client.sandbox ? { sandbox: true as const } : {}),
      scopes: narrow(GATEWAY_SCOPES, requested),
    };
  if (client.isOperator) return { ...base, kind: 'operator', scopes: narrow(OPERATOR_SCOPES, requested) };
  if (client.clientType)
    return {
      ...base,
      kind: 'partner',
      clientType: client.clientType,
      facilityGuids: client.facilityGuids,
      scopes: narrow(PARTNER_SCOPES, requested),
    };
  return null;
}

/** The account an account key (or its refresh token) acts for, through the client it was issued to. */
function accountPrincipal(
  credential: { id: string; account_id: EntityId; sandbox_of: EntityId | null },
  client: Client,
  scopes: Scope[],
): PrincipalWithoutToken {
  return {
    kind: 'account',
    accountId: credential.account_id,
    ...(credential.sandbox_of !== null ? { sandbox: true as const } : {}),
    credentialId: credential.id,
    clientId: client.clientId,
    scopes,
  };
}
