/**
 * ServiceError and transformError exactly per spec 7.3, and the error
 * catalogue: every code the gateway raises is documented in docs/gateway.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GatewayErrors, ServiceError, toServiceError, transformError } from 'fw';

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
  it('documents every code the gateway raises', () => {
    const root = path.resolve(__dirname, '../..');
    const docs = fs.readFileSync(path.join(root, 'docs/gateway.md'), 'utf8');
    const codes = new Set<string>();
    for (const factory of Object.values(GatewayErrors)) codes.add((factory as (...a: string[]) => ServiceError)('a', 'b').code);
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'monitoring' && entry.name !== 'discovery') walk(full);
        } else if (entry.name.endsWith('.ts')) {
          // Code only: JSDoc examples (lines starting with `*`) show application codes.
          const code = fs.readFileSync(full, 'utf8').split('\n').filter((l) => !/^\s*(\*|\/\/)/.test(l)).join('\n');
          for (const m of code.matchAll(/(?:new ServiceError\(|code: )'([A-Z_]+)'/g)) codes.add(m[1] as string);
        }
      }
    };
    walk(path.join(root, 'runtime/gateway'));
    expect(codes.size).toBeGreaterThan(10);
    const missing = [...codes].filter((c) => !docs.includes(`\`${c}\``));
    expect(missing).toEqual([]);
  });
});
