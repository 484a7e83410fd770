/**
 * Compiles TypeScript files with the repo's strict options and `fw/*` mapped
 * to runtime/ sources (as the exports map does for dist/), and returns the
 * diagnostics of the given files only: other files of the program (the
 * runtime) are checked by the repo's own typecheck.
 */
import * as path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './run-cli';

/** One diagnostic, flattened for assertions. */
export interface Problem {
  file: string;
  line: number;
  code: number;
  message: string;
}

/**
 * Type-checks `files` (absolute paths) under `--strict`: as CommonJS (the
 * repository's settings), or as Node ES modules (`module: nodenext`, which
 * also needs the files' nearest package.json to say `"type": "module"`).
 */
export function typecheck(files: readonly string[], moduleSystem: 'commonjs' | 'esm' = 'commonjs'): Problem[] {
  const esm = moduleSystem === 'esm';
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: esm ? ts.ModuleKind.NodeNext : ts.ModuleKind.CommonJS,
    moduleResolution: esm ? ts.ModuleResolutionKind.NodeNext : ts.ModuleResolutionKind.Node10,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
    isolatedModules: true,
    types: ['node'],
    typeRoots: [path.join(REPO_ROOT, 'node_modules', '@types')],
    baseUrl: REPO_ROOT,
    paths: {
      fw: ['runtime/index.ts'],
      'fw/grpc': ['runtime/grpc/index.ts'],
      'fw/grpc-client': ['runtime/grpc/client/index.ts'],
      'fw/middleware': ['runtime/middleware/index.ts'],
      'fw/testing': ['runtime/testing/index.ts'],
      'fw/protobuf-wire': ['runtime/protobuf-wire.ts'],
      'fw/browser': ['runtime/browser/index.ts'],
    },
  };
  const program = ts.createProgram({ rootNames: [...files], options });
  const wanted = new Set(files.map((f) => path.resolve(f)));
  const problems: Problem[] = [];
  for (const sf of program.getSourceFiles()) {
    if (!wanted.has(path.resolve(sf.fileName))) continue;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line + 1;
      problems.push({ file: path.relative(REPO_ROOT, sf.fileName), line, code: d.code, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') });
    }
  }
  return problems;
}
