// The request deadline: a request that has had no answer REQUEST_TIMEOUT_MS after it arrived is
// answered 503 with Retry-After through the face's own error renderer, whatever it waits on (a
// database that is frozen, a lock, a full pool). The time the client takes to upload its body is
// not counted. A route that holds requests on purpose (a long-poll) declares how long in
// `config.waitsUpToMs` and gets that much more. Once the answer has begun (headers sent: a
// streaming export) the deadline no longer applies; the database's statement timeout bounds
// each of the export's reads.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './app-type.ts';
import { AppError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The longest this route holds a request on purpose (a long-poll's wait), added to the deadline. */
    waitsUpToMs?: number;
  }
}

export const DEADLINE_RETRY_AFTER_SECONDS = 5;

export function deadlineExceeded(afterMs: number): AppError {
  return new AppError(
    503,
    'DEADLINE_EXCEEDED',
    `The service could not complete the request within ${Math.round(afterMs / 100) / 10} s (the database is slow or unreachable); it may or may not have taken effect. Retry after the time in Retry-After.`,
    [],
    { 'retry-after': String(DEADLINE_RETRY_AFTER_SECONDS) },
  );
}

interface Deadline {
  timer: NodeJS.Timeout | null;
  /** Time left when the timer is not running (while the body is uploaded). */
  remainingMs: number;
  /** When the running timer was started. */
  startedAt: number;
  budgetMs: number;
}

const deadlines = new WeakMap<FastifyRequest, Deadline>();

export function registerRequestDeadline(app: App, requestTimeoutMs: number): void {
  const start = (request: FastifyRequest, reply: FastifyReply, deadline: Deadline) => {
    deadline.startedAt = Date.now();
    deadline.timer = setTimeout(() => {
      deadline.timer = null;
      deadlines.delete(request);
      // Already answered, or answering: nothing to do (and nothing may be sent twice).
      if (reply.sent || reply.raw.headersSent) return;
      // Through the route's error handler: the face renders it (problem+json, envelope, OAuth).
      reply.send(deadlineExceeded(deadline.budgetMs));
      // The handler goes on until its database work ends (bounded by the statement timeout).
      // Its answer is dropped with a line that says so, instead of fastify's "Reply was already
      // sent, did you forget to return reply" warning; a late failure is logged by fastify.
      reply.send = () => {
        request.log.info(
          { afterMs: Date.now() - deadline.startedAt },
          'the handler finished after the request deadline had answered; its answer was dropped',
        );
        return reply;
      };
    }, deadline.remainingMs);
  };
  const pause = (deadline: Deadline) => {
    if (!deadline.timer) return;
    clearTimeout(deadline.timer);
    deadline.timer = null;
    deadline.remainingMs = Math.max(0, deadline.remainingMs - (Date.now() - deadline.startedAt));
  };
  const stop = (request: FastifyRequest) => {
    const deadline = deadlines.get(request);
    if (deadline?.timer) clearTimeout(deadline.timer);
    deadlines.delete(request);
  };

  app.addHook('onRequest', (request, reply, done) => {
    const budgetMs = requestTimeoutMs + (request.routeOptions.config?.waitsUpToMs ?? 0);
    const deadline: Deadline = { timer: null, remainingMs: budgetMs, startedAt: 0, budgetMs };
    deadlines.set(request, deadline);
    start(request, reply, deadline);
    done();
  });
  // The body arrives at the client's pace: that time is not the service's.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const deadline = deadlines.get(request);
    if (deadline) pause(deadline);
    done(null, payload);
  });
  app.addHook('preValidation', (request, reply, done) => {
    const deadline = deadlines.get(request);
    if (deadline && !deadline.timer) start(request, reply, deadline);
    done();
  });
  // The handler (or the error handler) has answered.
  app.addHook('onSend', (request, _reply, payload, done) => {
    stop(request);
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    stop(request);
    done();
  });
}
