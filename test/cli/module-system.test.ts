/**
 * How fw-gen picks the module system of generated code (cli/module-system.ts):
 * package.json `type`, then the package's own tsconfig `module`, then
 * CommonJS; `--module` wins over both.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../../cli/cli-error';
import { detectModuleSystem, parseModuleFlag } from '../../cli/module-system';
import { makeTemp, removeTemp } from './support/run-cli';

describe('module system detection', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTemp('module-system');
  });
  afterEach(() => removeTemp(dir));

  const write = (rel: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };

  it('reads "type": "module" from the nearest package.json above the output folder', () => {
    write('package.json', '{"type":"module"}');
    expect(detectModuleSystem(path.join(dir, 'generated', 'not-yet-there'))).toEqual({ system: 'esm', source: 'package.json "type"' });
  });

  it('reads an ES tsconfig "module" (comments allowed) when package.json says nothing', () => {
    write('package.json', '{"name":"x"}');
    write('tsconfig.json', '{\n  // ES output for a bundler\n  "compilerOptions": { "module": "ESNext", /* here */ "strict": true }\n}\n');
    expect(detectModuleSystem(path.join(dir, 'generated')).system).toBe('esm');
  });

  it('stays CommonJS for module nodenext without "type": "module", and by default', () => {
    write('package.json', '{"type":"commonjs"}');
    write('tsconfig.json', '{"compilerOptions":{"module":"nodenext"}}');
    expect(detectModuleSystem(path.join(dir, 'generated'))).toEqual({ system: 'commonjs', source: 'default' });
  });

  it('ignores a tsconfig outside the package', () => {
    write('tsconfig.json', '{"compilerOptions":{"module":"esnext"}}');
    write('pkg/package.json', '{}');
    expect(detectModuleSystem(path.join(dir, 'pkg', 'generated')).system).toBe('commonjs');
  });

  it('lets --module override detection, and refuses other values', () => {
    write('package.json', '{"type":"module"}');
    expect(detectModuleSystem(dir, parseModuleFlag('commonjs'))).toEqual({ system: 'commonjs', source: '--module' });
    expect(parseModuleFlag('ESM')).toBe('esm');
    expect(parseModuleFlag('cjs')).toBe('commonjs');
    expect(() => parseModuleFlag('amd')).toThrow(InputError);
  });
});
