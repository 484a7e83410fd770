/**
 * ServiceError and transformError, and the error catalogue: every code with
 * its statuses documented in docs/, no ServiceError built outside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as fw from 'fw';
import { ERROR_CATALOGUE, GrpcStatus, ServiceError, ServiceErrors, toServiceError, transformError } from 'fw';

describe('ServiceError', () => {
  it('carries code, message, statusCode (default 500), details and its name', () => {
    const e = new ServiceError('USER_NOT_FOUND', 'User 1 not found', 404, { id: '1' });
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({ name: 'ServiceError', code: 'USER_NOT_FOUND', message: 'User 1 not found', statusCode: 404, details: { id: '1' } });
    expect(new ServiceError('X', 'y').statusCode).toBe(500);
  });
});

describe('transformError (spec 7.3)', () => {
  const e = new ServiceError('USER_NOT_FOUND', 'User 1 not found', 404, { id: '1' });

  it('renders each protocol as the spec table says', () => {
    expect(transformError(e, 'http')).toEqual({ status: 404, body: { error: 'USER_NOT_FOUND', message: 'User 1 not found', details: { id: '1' } } });
    expect(transformError(e, 'grpc')).toEqual({ code: 5, message: 'User 1 not found', details: { id: '1' } });
    expect(transformError(e, 'websocket')).toEqual({ type: 'error', error: { code: 'USER_NOT_FOUND', message: 'User 1 not found', details: { id: '1' } } });
    expect(transformError(e, 'udp')).toEqual({ error: 'USER_NOT_FOUND', message: 'User 1 not found', details: { id: '1' } });
    expect(transformError(e, 'tcp')).toEqual({ error: 'USER_NOT_FOUND', message: 'User 1 not found', details: { id: '1' } });
  });

  it('maps HTTP statuses to gRPC numbers: 400→3, 401→16, 403→7, 404→5, 409→6, 429→8, other→13', () => {
    const table: [number, number][] = [[400, 3], [401, 16], [403, 7], [404, 5], [409, 6], [429, 8], [500, 13], [418, 13], [503, 13]];
    for (const [http, grpc] of table) expect(transformError(new ServiceError('SOME_CODE', 'm', http), 'grpc').code).toBe(grpc);
  });

  it('uses INTERNAL_ERROR and 500 for errors without code or status', () => {
    expect(transformError(new Error('boom'), 'http')).toEqual({ status: 500, body: { error: 'INTERNAL_ERROR', message: 'boom', details: undefined } });
    expect(transformError(new Error('boom'), 'websocket')).toEqual({ type: 'error', error: { code: 'INTERNAL_ERROR', message: 'boom', details: undefined } });
  });

  it('keeps a gRPC status named by the code (UNAVAILABLE → 14)', () => {
    expect(transformError(new ServiceError('UNAVAILABLE', 'db down', 503), 'grpc').code).toBe(14);
  });
});

describe('toServiceError', () => {
  it('keeps gRPC statuses, maps ValidationError to 400 and hides everything else', () => {
    expect(toServiceError(Object.assign(new Error('5 NOT_FOUND: gone'), { code: 5 }))).toMatchObject({ code: 'NOT_FOUND', message: 'gone', statusCode: 404 });
    expect(toServiceError(Object.assign(new Error('bad'), { name: 'ValidationError' }))).toMatchObject({ code: 'VALIDATION_ERROR', statusCode: 400 });
    expect(toServiceError(new Error('secret'))).toMatchObject({ code: 'INTERNAL_ERROR', message: 'Internal server error', statusCode: 500 });
    expect(toServiceError('a string')).toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});

describe('error catalogue', () => {
  const root = path.resolve(__dirname, '../..');

  it('documents every code, with its HTTP and gRPC status, in docs/', () => {
    const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => fs.readFileSync(path.join(root, 'docs', f), 'utf8')).join('\n');
    const undocumented = Object.entries(ERROR_CATALOGUE)
      .filter(([code, e]) => !docs.includes(`| \`${code}\` | ${e.httpStatus} | ${GrpcStatus[e.grpcStatus]} |`))
      .map(([code]) => code);
    expect(Object.keys(ERROR_CATALOGUE).length).toBeGreaterThan(20);
    expect(undocumented).toEqual([]);
  });

  it('is the only place the runtime builds a ServiceError', () => {
    const inline: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts') && !full.endsWith(path.join('rpc', 'error-catalogue.ts'))) {
          // Code only: JSDoc examples (lines starting with `*`) show application codes.
          const code = fs.readFileSync(full, 'utf8').split('\n').filter((l) => !/^\s*(\*|\/\/)/.test(l)).join('\n');
          if (code.includes('new ServiceError(')) inline.push(path.relative(root, full));
        }
      }
    };
    walk(path.join(root, 'runtime'));
    expect(inline).toEqual([]);
  });

  it('from(unknown) normalises like toServiceError; ServiceErrors is the only name of the factories', () => {
    expect(ServiceErrors.from(new Error('secret'))).toMatchObject({ code: 'INTERNAL_ERROR', message: 'Internal server error', statusCode: 500 });
    expect('GatewayErrors' in fw).toBe(false);
    for (const [name, factory] of Object.entries(ServiceErrors)) {
      if (name === 'from') continue;
      const error = (factory as (...a: unknown[]) => ServiceError)('a', 'b', ['GET']);
      const entry = (ERROR_CATALOGUE as Record<string, { httpStatus: number; grpcStatus: number }>)[error.code];
      expect(entry).toBeDefined();
      expect(error.statusCode).toBe(entry?.httpStatus);
      expect(transformError(error, 'grpc').code).toBe(entry?.grpcStatus);
    }
  });
});
