// A simulated controller's failures in words, with what to check: "the gateway credential gwc_… was
// refused (401 invalid_client): check --gateway clientId:clientSecret" says what "3 errors" did
// not. Pure: the error (an HttpError from client.ts, or the network error fetch threw), the call
// that failed and the service's address in, one sentence out.
import { HttpError } from './client.ts';

/** The service's reason in an answer's body: OAuth's `error` (and description), or problem+json's `detail`/`title`. */
function reasonIn(body: string): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    if (typeof parsed.error === 'string') return parsed.error;
    for (const key of ['detail', 'title', 'message'])
      if (typeof parsed[key] === 'string' && parsed[key]) return parsed[key] as string;
  } catch {
    /* not JSON: the status alone */
  }
  return '';
}

/** The system error code under a failed fetch ("fetch failed" → ECONNREFUSED, ENOTFOUND, …). */
function networkCode(error: unknown): string | null {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string') return e.code;
    e = e.cause as typeof e;
  }
  return null;
}

export function describeFailure(error: unknown, baseUrl: string, clientId: string): string {
  if (error instanceof HttpError) {
    const reason = reasonIn(error.body);
    const status = `${error.status}${reason ? ` ${reason}` : ''}`;
    if (error.status === 429) {
      const wait = error.retryAfterMs !== null ? ` in ${Math.ceil(error.retryAfterMs / 1000)} s` : '';
      return `the service is limiting requests (${status}): trying again${wait}`;
    }
    if (error.status >= 500) return `the service is unavailable (${status}): trying again`;
    if (error.call === 'token') {
      if (error.status === 401 || (error.status === 400 && /client/.test(reason)))
        return `the gateway credential ${clientId} was refused (${status}): check --gateway clientId:clientSecret`;
      if (error.status === 404)
        return `${baseUrl} has no token endpoint (404 for /auth/token): is --url the address of a Gatehouse service?`;
      return `the gateway credential ${clientId} could not get a token (${status})`;
    }
    if (error.status === 404 && error.call === 'digest')
      return `the service does not compare digests (404 for /gateway/v1/digest): the controller stops sending them`;
    if (error.status === 404)
      return `${baseUrl} has no gateway routes (404 for /gateway/v1/${error.call}): is --url the address of a Gatehouse service?`;
    if (error.status === 401) return `the service refused the gateway's token (${status}): getting a new one`;
    if (error.status === 403)
      return `the credential ${clientId} may not act as a gateway (${status}): is it a gateway credential (\`gatehouse admin gateway create\`)?`;
    if (error.call === 'events') return `a batch of events was refused (${status}): its events are dropped`;
    return `the service refused ${error.call} (${status})`;
  }
  const code = networkCode(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot find the host of ${baseUrl} (${code}): check --url`;
  if (code === 'ECONNREFUSED') return `cannot reach the service at ${baseUrl} (${code}): is it running? check --url`;
  if (code) return `cannot reach the service at ${baseUrl} (${code}): trying again`;
  const message = error instanceof Error ? error.message : String(error);
  return `the service at ${baseUrl} gave no usable answer (${message}): trying again`;
}
