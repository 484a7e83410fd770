/**
 * Stage 4: handlebars templates (templates/) over the model. Views are
 * computed here so that templates hold no logic; templates are compiled with
 * `noEscape` because they emit code, not HTML.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { descriptorChunks } from './descriptor-chunks';
import { relativeModule } from './module-paths';
import type { FileModel, HttpRouteModel, Json, MethodModel, TsTypeRef } from './model';
import { openApiDocument } from './openapi';
import { packageRoot } from './package-root';
import { isShippedDescriptor } from './shipped-descriptors';
import { handlerTypeName, stubSignature, type SignatureTypes } from './stub-signature';
import { compileTemplate, type Template } from './template-cache';
import { tsLiteral } from './ts-literal';
import { BROWSER_MESSAGES_SUFFIX } from './browser-messages';

// Schemas are shared between methods with the same request type: print each once.
const literalCache = new WeakMap<object, string>();

function cachedLiteral(value: object, indent: string): string {
  let text = literalCache.get(value);
  if (text === undefined) {
    text = tsLiteral(value as Json, indent);
    literalCache.set(value, text);
  }
  return text;
}
const compiled = new Map<string, Template>();

function template(name: string): Template {
  let t = compiled.get(name);
  if (t === undefined) {
    t = compileTemplate(fs.readFileSync(path.join(packageRoot(), 'templates', name), 'utf8'));
    compiled.set(name, t);
  }
  return t;
}

/** Compiles every template now (generate.ts calls this while buf runs). */
export function preloadTemplates(): void {
  for (const name of ['service-fw.ts.hbs', 'service-browser.ts.hbs', 'service-stub.ts.hbs', 'stub-method.ts.hbs', 'openapi.json.hbs']) template(name);
}

/** A JSDoc block from a proto comment, indented; empty when there is none. */
export function jsdoc(comment: string | undefined, indent: string): string {
  if (comment === undefined) return '';
  const lines = comment.replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)).join('\n')}\n${indent} */\n`;
}

/** `import { A, B as pkg_B } from './x';` lines grouped by module, sorted. */
export function importLines(refs: readonly TsTypeRef[], typeOnly: boolean, moduleOf: (stem: string) => string): string[] {
  const byModule = new Map<string, string[]>();
  for (const r of refs) {
    const spec = r.localName === r.exportName ? r.exportName : `${r.exportName} as ${r.localName}`;
    const mod = moduleOf(r.module);
    byModule.set(mod, [...(byModule.get(mod) ?? []), spec]);
  }
  const keyword = typeOnly ? 'import type' : 'import';
  return [...byModule.keys()]
    .sort()
    .map((mod) => {
      const names = [...new Set(byModule.get(mod))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const oneLine = `${keyword} { ${names.join(', ')} } from '${mod}';`;
      return oneLine.length <= 100 ? oneLine : `${keyword} {\n${names.map((n) => `  ${n},`).join('\n')}\n} from '${mod}';`;
    });
}

function clientSignature(m: MethodModel): { clientParams: string; clientResult: string } {
  const req = `PartialMessage<${m.request.localName}>`;
  const streamIn = m.streaming === 'client' || m.streaming === 'bidirectional';
  const streamOut = m.streaming === 'server' || m.streaming === 'bidirectional';
  return {
    clientParams: streamIn ? `requests: AsyncIterable<${req}>` : `request: ${req}`,
    clientResult: streamOut ? `AsyncIterable<${m.response.localName}>` : `Promise<${m.response.localName}>`,
  };
}

/** The runtime's HttpRule of a route: method, template, and the body rules when set. */
function httpRuleJson(route: HttpRouteModel): Json {
  const rule: { [k: string]: Json } = { method: route.method, path: route.path };
  if (route.body !== undefined) rule['body'] = route.body;
  if (route.responseBody !== undefined) rule['responseBody'] = route.responseBody;
  return rule;
}

/** The descriptor list of a generated `x.fw.ts`: its stem and the proto paths it holds. */
export interface DescriptorList {
  stem: string;
  files: readonly string[];
}

/**
 * The entries of `file`'s descriptor list: lists of imported files that have
 * their own `x.fw.ts` (and what those hold) first, then shipped names and
 * embedded pieces for the rest, its own descriptor last.
 */
function descriptorEntries(file: FileModel, lists: ReadonlyMap<string, DescriptorList>, importSuffix: string): { imports: string[]; entries: object[] } {
  const own = file.descriptorFiles[file.descriptorFiles.length - 1];
  const covered = new Set<string>();
  const imports: string[] = [];
  const entries: object[] = [];
  for (const d of file.descriptorFiles) {
    const list = d === own ? undefined : lists.get(d.name);
    if (list === undefined || covered.has(d.name)) continue;
    const alias = `${list.stem.replace(/[^A-Za-z0-9]/g, '_')}_descriptors`;
    imports.push(`import { FILE_DESCRIPTOR_PROTOS as ${alias} } from '${relativeModule(file.stem, `${list.stem}.fw`, importSuffix)}';`);
    entries.push({ name: d.name, imported: true, alias });
    list.files.forEach((f) => covered.add(f));
  }
  for (const d of file.descriptorFiles) {
    if (covered.has(d.name)) continue;
    if (isShippedDescriptor(d.name)) entries.push({ name: d.name, shipped: true });
    else entries.push({ name: d.name, chunks: descriptorChunks(d.bytes, d.name).map((c) => ({ label: c.label, base64: Buffer.from(c.bytes).toString('base64') })) });
  }
  return { imports, entries };
}

/** Renders `x.fw.ts`; `lists` are the descriptor lists of this run's other `x.fw.ts` files, by proto path. */
export function renderFw(file: FileModel, importSuffix = '', lists: ReadonlyMap<string, DescriptorList> = new Map()): string {
  const services = file.services.map((s) => {
    const routes: { key: string; target: string }[] = [];
    for (const m of s.methods) {
      const all: HttpRouteModel[] = [...m.http, { method: 'POST', path: m.defaultRoute, routerPath: m.defaultRoute, params: [], body: '*', shape: '' }];
      // routerPath is the template itself when Express cannot say it, so sub-patterns keep routes apart.
      for (const h of all) routes.push({ key: `${h.method} ${h.routerPath}`, target: `${s.name}.${m.localName}` });
    }
    return {
      ...s,
      jsdoc: jsdoc(s.comment ?? `Descriptor of ${s.typeName}.`, ''),
      routes,
      methods: s.methods.map((m) => ({
        ...m,
        jsdoc: jsdoc(m.comment, '  '),
        request: m.request.localName,
        response: m.response.localName,
        requestType: m.request.protoName,
        responseType: m.response.protoName,
        handlerType: handlerTypeName(m),
        httpRules: tsLiteral(m.http.map((h): Json => httpRuleJson(h)), '      '),
        jsonSchema: cachedLiteral(m.inputSchema, '    '),
        simpleSchema: cachedLiteral(m.simpleSchema, '    '),
        ...clientSignature(m),
      })),
    };
  });
  const moduleOf = (mod: string): string => relativeModule(file.stem, mod, importSuffix);
  const lines = importLines(file.imports, false, moduleOf);
  const compiled = file.validators.functions.length > 0 ? file.validators : undefined;
  const validatorTypes = compiled === undefined ? [] : importLines(compiled.types, true, moduleOf);
  const descriptors = descriptorEntries(file, lists, importSuffix);
  return template('service-fw.ts.hbs')({
    protoPath: file.protoPath,
    importLines: [...lines, ...validatorTypes, ...descriptors.imports],
    services,
    descriptors: descriptors.entries,
    validators: compiled,
  });
}

const CALL_KIND = { none: 'unary', server: 'server', client: 'client', bidirectional: 'bidi' } as const;

/** Renders `x.browser.ts`: the browser client (runtime `fw/browser`), which imports the JSON-only message objects of `x.browser-messages.ts`. */
export function renderBrowser(file: FileModel, importSuffix = ''): string {
  const services = file.services.map((s) => ({
    name: s.name,
    typeName: s.typeName,
    methods: s.methods.map((m) => ({
      localName: m.localName,
      jsdoc: jsdoc(m.comment, ''),
      kind: CALL_KIND[m.streaming],
      request: m.request.localName,
      response: m.response.localName,
    })),
  }));
  const used = new Set(file.services.flatMap((s) => s.methods.flatMap((m) => [m.request.protoName, m.response.protoName])));
  const lines = importLines(
    file.imports.filter((r) => used.has(r.protoName)),
    false,
    (mod) => relativeModule(file.stem, `${mod}${BROWSER_MESSAGES_SUFFIX}`, importSuffix),
  );
  return template('service-browser.ts.hbs')({ protoPath: file.protoPath, importLines: lines, services });
}

/** Renders one stub method (also used by the merge to append new RPCs, with the stub's names of the types). */
export function renderStubMethod(m: MethodModel, indent: string, types?: SignatureTypes): string {
  const sig = stubSignature(m, types);
  return template('stub-method.ts.hbs')({ jsdoc: jsdoc(m.comment, indent), indent, signature: sig.text, path: m.path }).replace(/\n$/, '');
}

/**
 * Renders a new `x.service.ts` stub.
 * @param fwModule import specifier of `x.fw` from the stub
 * @param moduleOf import specifier of a ts-proto module (by stem) from the stub
 */
export function renderStub(file: FileModel, fwModule: string, moduleOf: (stem: string) => string): string {
  const handlers = file.services.map((s) => `${s.name}Handlers`).sort();
  const lines = importLines(file.imports, true, moduleOf);
  lines.push(`import type { ${handlers.join(', ')} } from '${fwModule}';`);
  const services = file.services.map((s) => ({
    name: s.name,
    jsdoc: jsdoc(s.comment ?? `Handlers of ${s.typeName}.`, ''),
    body: s.methods.map((m) => renderStubMethod(m, '  ')).join('\n\n'),
  }));
  return template('service-stub.ts.hbs')({ protoPath: file.protoPath, importLines: lines, services });
}

/** Renders `x.openapi.json`. */
export function renderOpenApi(file: FileModel): string {
  return template('openapi.json.hbs')({ document: JSON.stringify(openApiDocument(file), null, 2) });
}
