/**
 * The emitted validation schemas compile with ajv (draft-07 and 2020-12)
 * plus ajv-formats, accept valid proto3 JSON and refuse what the
 * `buf.validate` rules forbid; the spec's simple shape and the OpenAPI
 * document carry the same rules.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { UserServiceValidation } from '../../generated/user.fw';
import { CatalogServiceValidation } from './fixtures/kitchen-sink/expected/out/shop/v1/catalog.fw';
import { REPO_ROOT } from './support/run-cli';

const validators = [new Ajv({ strict: false }), new Ajv2020({ strict: false })].map((a) => addFormats(a));

describe('validation schemas', () => {
  it.each(validators.map((v, i) => [i === 0 ? 'draft-07' : '2020-12', v] as const))('compile for every method with ajv %s', (_name, ajv) => {
    for (const table of [UserServiceValidation, CatalogServiceValidation]) {
      for (const entry of Object.values(table)) expect(() => ajv.compile(entry.jsonSchema)).not.toThrow();
    }
  });

  it('accept valid requests and refuse rule violations', () => {
    const ajv = validators[0] as Ajv;
    const createUser = ajv.compile(UserServiceValidation.createUser.jsonSchema);
    expect(createUser({ name: 'Ada', email: 'ada@example.com', address: { zipCode: '12345' }, roles: ['admin'] })).toBe(true);
    expect(createUser({ name: 'Ada', email: 'not-an-email' })).toBe(false);
    expect(createUser({ email: 'ada@example.com' })).toBe(false);
    expect(createUser({ name: '', email: 'ada@example.com' })).toBe(false);
    expect(createUser({ name: 'Ada', email: 'ada@example.com', address: { zipCode: 5 } })).toBe(false);
    const listUsers = ajv.compile(UserServiceValidation.listUsers.jsonSchema);
    expect(listUsers({ page: 1, limit: 100 })).toBe(true);
    expect(listUsers({ limit: 101 })).toBe(false);
    expect(listUsers({ limit: -1 })).toBe(false);
    const update = ajv.compile(CatalogServiceValidation.updateProduct.jsonSchema);
    const product = { name: 'Lamp', tags: ['a', 'b'], pricesByRegion: { eu: { currency: 'EUR', minorUnits: '1999' } }, availableFrom: '2024-01-01T00:00:00Z', status: 'STATUS_ACTIVE' };
    expect(update({ product })).toBe(true);
    expect(update({})).toBe(false);
    expect(update({ product: { ...product, tags: ['a', 'a'] } })).toBe(false);
    expect(update({ product: { ...product, sku: 'lower-case' } })).toBe(false);
    expect(update({ product: { ...product, availableFrom: 'yesterday' } })).toBe(false);
    expect(update({ product: { ...product, status: 'NOPE' } })).toBe(false);
  });

  it('give the spec {type, properties} shape with required flags', () => {
    expect(UserServiceValidation.createUser.input).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', required: true },
        email: { type: 'string', required: true },
        phone: { type: 'string' },
        address: { type: 'object' },
        roles: { type: 'array' },
      },
    });
  });

  it('describe the HTTP mapping in OpenAPI 3.1', () => {
    const doc = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'generated', 'user.openapi.json'), 'utf8')) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string; parameters?: { name: string; in: string }[]; requestBody?: unknown }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/users', '/users/{id}', '/api/UserService/searchUsers']));
    expect(Object.keys(doc.paths['/users/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'put']);
    expect(doc.paths['/users/{id}']?.['get']?.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path' })]);
    expect(doc.paths['/users']?.['get']?.parameters?.map((p) => p.name)).toEqual(['page', 'limit', 'sortBy', 'sortOrder']);
    expect(doc.paths['/users']?.['post']?.requestBody).toBeDefined();
    expect(doc.components.schemas['user.User']).toBeDefined();
  });
});
