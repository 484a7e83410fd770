/**
 * google.api.http path templates (runtime/gateway/http/path-template.ts): the
 * grammar, what each form matches, and how captures are decoded.
 */
import { matchPathTemplate, parsePathTemplate, PathTemplateError } from '../../runtime/gateway/http/path-template';

const parts = (path: string): string[] => path.split('/').filter((p) => p !== '');
const match = (template: string, path: string): Record<string, string> | undefined => {
  const found = matchPathTemplate(parsePathTemplate(template), parts(path));
  return found === undefined ? undefined : { ...found };
};

describe('path templates', () => {
  it('a variable matches exactly its sub-pattern', () => {
    expect(match('/v1/{name=operations}', '/v1/operations')).toEqual({ name: 'operations' });
    expect(match('/v1/{name=operations}', '/v1/operations/x')).toBeUndefined();
    expect(match('/v1/{name=operations/**}', '/v1/operations')).toEqual({ name: 'operations' });
    expect(match('/v1/{name=operations/**}', '/v1/operations/a/b')).toEqual({ name: 'operations/a/b' });
    expect(match('/v1/{name=projects/*/topics/*}', '/v1/projects/p/topics/t')).toEqual({ name: 'projects/p/topics/t' });
    expect(match('/v1/{name=projects/*/topics/*}', '/v1/projects/p/subs/t')).toBeUndefined();
    expect(match('/v1/{name=projects/*/topics/*}', '/v1/projects/p/topics')).toBeUndefined();
  });

  it('{x} is {x=*}: one non-empty segment, fully decoded', () => {
    expect(match('/users/{id}', '/users/a%2Fb%20c')).toEqual({ id: 'a/b c' });
    expect(match('/users/{id}', '/users/a/b')).toBeUndefined();
    expect(match('/users/{user.id}/x', '/users/7/x')).toEqual({ 'user.id': '7' });
  });

  it('custom verbs must be present and equal', () => {
    expect(match('/v1/{name=operations/**}:cancel', '/v1/operations/a:cancel')).toEqual({ name: 'operations/a' });
    expect(match('/v1/{name=operations/**}:cancel', '/v1/operations/a:wait')).toBeUndefined();
    expect(match('/v1/{name=operations/**}:cancel', '/v1/operations/a')).toBeUndefined();
    expect(match('/v1/things:batchGet', '/v1/things:batchGet')).toEqual({});
  });

  it('one ** anywhere takes what the segments around it leave (firestore ListDocuments)', () => {
    const t = '/v1/{parent=projects/*/databases/*/documents/*/**}/{collection_id}';
    expect(match(t, '/v1/projects/p/databases/d/documents/c/doc/sub/things')).toEqual({ parent: 'projects/p/databases/d/documents/c/doc/sub', collection_id: 'things' });
    expect(match(t, '/v1/projects/p/databases/d/documents/c/things')).toEqual({ parent: 'projects/p/databases/d/documents/c', collection_id: 'things' });
    expect(match(t, '/v1/projects/p/databases/d/documents/c')).toBeUndefined();
  });

  it('broken percent-encoding does not match', () => {
    expect(match('/users/{id}', '/users/%E0%A4%A')).toBeUndefined();
  });

  it('the shape drops variable names: equal shapes collide', () => {
    expect(parsePathTemplate('/v1/{name=things/*}').shape).toBe(parsePathTemplate('/v1/{id=things/*}').shape);
    expect(parsePathTemplate('/v1/{name=things}').shape).not.toBe(parsePathTemplate('/v1/{name=things/**}').shape);
  });

  it.each([
    ['v1/x', 'expected "/"'],
    ['/v1/{name', 'expected "}"'],
    ['/v1/{na-me}', 'is not a field path'],
    ['/v1/{a}/{a}', 'appears twice'],
    ['/v1/{a={b}}', 'cannot nest'],
    ['/v1/**/x/**', 'at most one "**"'],
    ['/v1//x', 'expected a literal'],
    ['/v1/x:', 'expected a verb'],
  ])('refuses %s', (template, message) => {
    expect(() => parsePathTemplate(template)).toThrow(PathTemplateError);
    expect(() => parsePathTemplate(template)).toThrow(message);
  });
});
