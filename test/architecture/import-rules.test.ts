/**
 * Guardrails on the shape of the runtime (STYLE.md 11, DESIGN.md "Layout"):
 * no circular imports (type-only imports count: a cycle is a cycle to a
 * reader), runtime/http never importing runtime/gateway (the gateway attaches
 * itself through runtime/http/gateway-hosting.ts's hook), runtime/http never
 * importing runtime/middleware (global middleware arrives through
 * runtime/http/global-middleware.ts's hook), core/ and validation/ never
 * importing grpc/ or gateway/, no cycle between folders, and no gateway
 * transport folder importing another. Every file of runtime/ is read, so
 * modules loaded lazily with require() are covered too.
 */
import madge from 'madge';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const transports = ['http', 'websocket', 'grpc', 'udp', 'tcp', 'connect'];

async function analyse(): ReturnType<typeof madge> {
  // Reading type imports walks TSImportType nodes, whose deprecated `argument` key makes
  // typescript-estree warn once per node: keep those (and only those) out of the test output.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes('TSImportType')) return;
    (emitWarning as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return await madgeRuntime();
  } finally {
    process.emitWarning = emitWarning;
  }
}

function madgeRuntime(): ReturnType<typeof madge> {
  return madge(path.join(root, 'runtime'), {
    baseDir: root,
    fileExtensions: ['ts'],
    tsConfig: path.join(root, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false } },
  });
}

/** `runtime/<folder>/…` → folder; files directly under runtime/ belong to the entry, above every folder. */
function folderOf(file: string): string | undefined {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1] : undefined;
}

/** Every import from a file of one of `from`'s folders into one of `to`'s. */
function importsBetween(deps: Record<string, string[]>, from: readonly string[], to: readonly string[]): string[] {
  return Object.entries(deps).flatMap(([file, imports]) =>
    from.includes(folderOf(file) ?? '') ? imports.filter((dep) => to.includes(folderOf(dep) ?? '')).map((dep) => `${file} -> ${dep}`) : [],
  );
}

/** Folder pairs that reach each other through imports (a depth-first walk of the folder graph). */
function folderCycles(deps: Record<string, string[]>): string[] {
  const graph = new Map<string, Set<string>>();
  for (const [file, imports] of Object.entries(deps)) {
    const from = folderOf(file);
    if (from === undefined) continue;
    for (const dep of imports) {
      const to = folderOf(dep);
      if (to !== undefined && to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  const reaches = (start: string, goal: string): boolean => {
    const seen = new Set<string>();
    const todo = [start];
    while (todo.length > 0) {
      const at = todo.pop() as string;
      if (at === goal) return true;
      if (seen.has(at)) continue;
      seen.add(at);
      todo.push(...(graph.get(at) ?? []));
    }
    return false;
  };
  const cycles: string[] = [];
  for (const [from, targets] of graph) for (const to of targets) if (reaches(to, from)) cycles.push(`${from} -> ${to}`);
  return cycles.sort();
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

  it('reads every runtime file', () => {
    expect(Object.keys(deps)).toEqual(expect.arrayContaining(['runtime/index.ts', 'runtime/gateway/grpc/transport.ts', 'runtime/gateway/app-hosting.ts']));
  });

  it('keeps runtime/http from importing runtime/gateway', () => {
    const offenders = Object.entries(deps).flatMap(([file, imports]) =>
      file.startsWith('runtime/http/') ? imports.filter((dep) => dep.startsWith('runtime/gateway/')).map((dep) => `${file} -> ${dep}`) : [],
    );
    expect(offenders).toEqual([]);
  });

  it('keeps core/ and validation/ from importing grpc/ or gateway/', () => {
    expect(importsBetween(deps, ['core', 'validation'], ['grpc', 'gateway'])).toEqual([]);
  });

  it('keeps runtime/http from importing runtime/middleware (middleware builds on http)', () => {
    expect(importsBetween(deps, ['http'], ['middleware'])).toEqual([]);
  });

  it('has no cycles between runtime folders', () => {
    expect(folderCycles(deps)).toEqual([]);
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
