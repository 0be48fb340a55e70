// The bodies of the auction routes are judged by validation.ts, which lists every fault (with a
// code, and the cross-field rules too); the schema on the route documents them. Query strings
// and path parameters keep the shared validator.
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from '../http/validation.ts';

export const bodyJudgedByService: FastifySchemaCompiler<object> = (route) =>
  route.httpPart === 'body' ? (data: unknown) => ({ value: data }) : validatorCompiler(route);
