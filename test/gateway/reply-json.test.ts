/**
 * The reply envelopes built as text must be byte for byte what
 * JSON.stringify gives for the envelope object, for every kind of value.
 */
import { dataEnvelopeJson, envelopeJson, jsonString } from '../../runtime/gateway/wire/reply-json';

const outcome = (f: () => string): string => {
  try {
    return f();
  } catch (e) {
    return `threw ${(e as Error).constructor.name}`;
  }
};

describe('reply envelope JSON', () => {
  const withToJSON = { toJSON: (key: string) => ({ key }) };
  const circular: Record<string, unknown> = { a: 1 };
  circular.self = circular;
  const values: unknown[] = [
    undefined,
    null,
    true,
    false,
    0,
    -0,
    42,
    -1.5,
    1e21,
    5e-324,
    NaN,
    Infinity,
    -Infinity,
    '',
    'plain',
    'Ada Lovelace',
    'quote " and \\ backslash',
    'tab\tnew\nline\u0000\u001f',
    'emoji 😀 and é',
    'lone \ud800 surrogate',
    'lone \udfff low',
    '\u2028\u2029',
    [],
    [1, 'two', null, undefined, () => 1],
    { id: '42', name: 'Ada Lovelace', roles: ['admin', 'user'] },
    { nested: { deep: [{ x: undefined, y: 1 }] } },
    new Date(0),
    withToJSON,
    Object.create(null) as object,
    new String('boxed'),
    new Number(3),
    () => 1,
    Symbol('s'),
    BigInt(1),
    circular,
    new Map([[1, 2]]),
    Buffer.from('hi'),
  ];

  it('jsonString matches JSON.stringify for every string', () => {
    for (const v of values) if (typeof v === 'string') expect(jsonString(v)).toBe(JSON.stringify(v));
    for (let c = 0; c < 0x10000; c += 1) {
      const s = `a${String.fromCharCode(c)}b`;
      if (jsonString(s) !== JSON.stringify(s)) throw new Error(`differs at U+${c.toString(16)}`);
    }
  });

  it('dataEnvelopeJson equals JSON.stringify({data})', () => {
    for (const data of values) expect(outcome(() => dataEnvelopeJson(data))).toBe(outcome(() => JSON.stringify({ data })));
  });

  it('envelopeJson equals JSON.stringify({id, method, data, traceId})', () => {
    const ids: unknown[] = [undefined, 1, 0, -0, 2.5, NaN, 'a', 'q"uote', null, true, { x: 1 }, withToJSON];
    const methods: unknown[] = [undefined, 'echo', 'we"ird\n', 7];
    const traceIds: unknown[] = [undefined, '4bf92f3577b34da6a3ce929d0e0e4736', 'x"y', 3];
    for (const data of values) {
      for (const id of ids) {
        for (const method of methods) {
          for (const traceId of traceIds) {
            const expected = outcome(() => JSON.stringify({ id, method, data, traceId }));
            const actual = outcome(() => envelopeJson(id, method as string | undefined, data, traceId as string | undefined));
            if (actual !== expected) throw new Error(`differs for ${String(id)} ${String(method)} ${typeof data} ${String(traceId)}: ${actual} vs ${expected}`);
          }
        }
      }
    }
  });
});
