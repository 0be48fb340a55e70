// The service's typed errors: thrown by domain code and routes with a status and a stable code,
// rendered by each face's renderer (src/http/problem.ts). Database errors that mean the same to
// every face are translated here, once.

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what = 'The resource') => new AppError(404, 'NOT_FOUND', `${what} was not found.`);
export const validationFailed = (errors: FieldError[], message = 'The request has invalid fields.') =>
  new AppError(400, 'VALIDATION_FAILED', message, errors);
export const conflict = (code: string, message: string) => new AppError(409, code, message);
export const forbidden = (message = 'The token does not allow this operation.') =>
  new AppError(403, 'FORBIDDEN', message);

/** How long a client waits before repeating a request that met a change of the same data at the same moment. */
export const CONCURRENT_CHANGE_RETRY_AFTER_SECONDS = 1;

/**
 * 409 CONCURRENT_CHANGE: another request changed the same data at the same moment. Unlike other
 * conflicts, the request as it is will likely succeed when repeated: it carries Retry-After.
 */
export const concurrentChange = (message: string) =>
  new AppError(409, 'CONCURRENT_CHANGE', message, [], {
    'retry-after': String(CONCURRENT_CHANGE_RETRY_AFTER_SECONDS),
  });

/**
 * What a database error means to a client, when it means the same in every face: two changes of
 * the same rows at one moment (deadlock, serialization failure) are a conflict to retry.
 * Null for anything else (a face may know its own constraints; the rest is a 500).
 */
export function fromDatabaseError(error: unknown): AppError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '40P01' || code === '40001') {
    return concurrentChange('Another change of the same data happened at the same moment; retry the request.');
  }
  return null;
}
