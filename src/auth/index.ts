// The authorization face: built once by the composition root (src/services.ts). Its parts: the
// token service (signing keys, verification), the grants of the token endpoint, and the throttle of
// failed token requests. The guard (guard.ts) enforces every route's access; routes/ holds the
// token endpoint, whoami and the JWKS.
import os from 'node:os';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { SharedState } from '../shared-state.ts';
import { CredentialStatus } from './credential-status.ts';
import { Grants, type SandboxTokenIssued } from './grants.ts';
import { loadSigningKeys } from './keys.ts';
import { SecretCheckLine } from './secret-checks.ts';
import { TokenThrottle } from './throttle.ts';
import { TokenService } from './tokens.ts';

export interface AuthDeps {
  database: Database;
  config: Config;
  sharedState: SharedState;
  clock: Clock;
  /** Told when a sandbox's credential gets a token (the sandbox face records its last use). */
  sandboxTokenIssued?: SandboxTokenIssued;
}

export interface Auth {
  tokens: TokenService;
  grants: Grants;
  /** Failed token requests: client authentication per (client id, source address) and per source address, grants per (client id, grant type, source address). */
  throttle: TokenThrottle;
  /** Whether a token's credential is still in force: the guard's check, and the live streams' watch. */
  credentials: CredentialStatus;
}

export async function createAuth({
  database,
  config,
  sharedState,
  clock,
  sandboxTokenIssued,
}: AuthDeps): Promise<Auth> {
  const tokens = new TokenService(await loadSigningKeys(config), config);
  // Hashes of earlier versions (scrypt) are checked a few at a time, one per two cores, until each
  // is replaced on its next use: a storm of old credentials cannot starve the rest.
  const secretChecks = SecretCheckLine.forCores(os.availableParallelism());
  const grants = new Grants(database.db, tokens, config.refreshTokenTtlSeconds, secretChecks, sandboxTokenIssued);
  const throttle = TokenThrottle.create(sharedState, config.tokenFailureLimit, config.tokenFailureWindowSeconds, clock);
  return { tokens, grants, throttle, credentials: new CredentialStatus(database.db, clock) };
}

// What other parts use of the face: new secrets and their hashes (tenancy makes credentials), and the
// signing key's rotation (`gatehouse admin`).
export { rotateSigningKey } from './keys.ts';
export { hashSecret, randomToken } from './secrets.ts';
export { registerGuard } from './guard.ts';
export { type AttemptCounter, SharedAttemptCounter } from './throttle.ts';
