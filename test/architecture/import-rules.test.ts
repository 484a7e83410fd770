/**
 * Guardrails on the shape of the runtime (STYLE.md 11, DESIGN.md "Layout"):
 * no circular imports, and no gateway transport folder importing another.
 */
import madge from 'madge';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const entries = ['runtime/index.ts', 'runtime/grpc/index.ts', 'runtime/grpc/client/index.ts', 'runtime/middleware/index.ts', 'runtime/testing/index.ts'];
const transports = ['http', 'websocket', 'grpc', 'udp', 'tcp', 'connect'];

function analyse(): ReturnType<typeof madge> {
  return madge(entries.map((e) => path.join(root, e)), {
    baseDir: root,
    fileExtensions: ['ts'],
    tsConfig: path.join(root, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: true } },
  });
}

describe('import rules', () => {
  let result: Awaited<ReturnType<typeof madge>>;
  let deps: Record<string, string[]>;
  beforeAll(async () => {
    result = await analyse();
    deps = result.obj();
  });

  it('has no circular imports in the runtime', () => {
    expect(result.circular()).toEqual([]);
  });

  it('keeps each gateway transport folder from importing another transport', () => {
    const offenders: string[] = [];
    for (const [file, imports] of Object.entries(deps)) {
      const own = transports.find((t) => file.startsWith(`runtime/gateway/${t}/`));
      if (own === undefined) continue;
      for (const dep of imports) {
        const other = transports.find((t) => t !== own && dep.startsWith(`runtime/gateway/${t}/`));
        if (other !== undefined) offenders.push(`${file} -> ${dep}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
