/**
 * Stage 3: @bufbuild/protobuf's registry over buf's descriptors → the plain
 * model of services, methods, `google.api.http` rules and `buf.validate`
 * schemas that the templates render.
 */
import { handlerName } from './handler-name';
import {
  getOption,
  hasOption,
  toJson,
  type DescExtension,
  type DescField,
  type DescFile,
  type DescMessage,
  type DescService,
  type FileRegistry,
} from '@bufbuild/protobuf';
import { simpleSchemaOf, standaloneSchema, SchemaBuilder, type FieldRulesJson, type RulesReader } from './json-schema';
import type { DescriptorFile, FileModel, HttpRouteModel, Json, MethodModel, ServiceModel, SimpleSchema, TsTypeRef } from './model';
import { idempotencyOf } from './idempotency-level';
import { parsePathTemplate, type PathTemplate } from '../runtime/gateway/http/path-template';
import { InputError } from './cli-error';
import { streamingModeOf } from './streaming-mode';
import { compileValidators } from './validators/compile-validators';
import { snakeToCamel } from 'ts-proto/build/src/case';

const HTTP_VERBS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Names ts-proto suffixes with `Message` so as not to shadow the global (its visit.ts). */
const TS_PROTO_BUILT_IN_NAMES = new Set(['Date', 'Function']);

/**
 * ts-proto's exported name for a message: nested names joined by `_`, each
 * holding `_` camel-cased by ts-proto's own function (its default
 * `snakeToCamel` includes type names).
 */
function tsExportName(message: DescMessage): string {
  const pkg = message.file.proto.package;
  const local = pkg === '' ? message.typeName : message.typeName.slice(pkg.length + 1);
  const name = local
    .split('.')
    .map((part) => (part.includes('_') ? snakeToCamel(part) : part))
    .join('_');
  return TS_PROTO_BUILT_IN_NAMES.has(name) ? `${name}Message` : name;
}

function commentAt(file: DescFile, at: readonly number[]): string | undefined {
  for (const loc of file.proto.sourceCodeInfo?.location ?? []) {
    if (loc.path.length !== at.length || !loc.path.every((v, i) => v === at[i])) continue;
    const text = (loc.leadingComments ?? '').trim();
    return text === '' ? undefined : text.split('\n').map((l) => l.replace(/^ /, '').trimEnd()).join('\n');
  }
  return undefined;
}

/**
 * Parses one `google.api.http` template. Plain templates (`/users/{id}`) also
 * get an Express-style `routerPath` (`/users/:id`); templates with
 * sub-patterns, `**` or a custom verb keep the template as their router path
 * (fw's gateway matches templates itself; Express cannot say them).
 */
function routeOf(method: HttpRouteModel['method'], template: string, where: string): HttpRouteModel {
  let parsed: PathTemplate;
  try {
    parsed = parsePathTemplate(template);
  } catch (error) {
    throw new InputError(`fw-gen: ${where}: ${(error as Error).message}`);
  }
  const plain = parsed.verb === undefined && parsed.segments.every((s) => s.kind !== 'deep') && parsed.variables.every((v) => v.end - v.start === 1 && parsed.segments[v.start]?.kind === 'wildcard');
  let routerPath = template;
  if (plain) {
    const names = new Map(parsed.variables.map((v) => [v.start, v.fieldPath.replace(/\./g, '_')]));
    routerPath = '/' + parsed.segments.map((s, i) => (names.has(i) ? `:${names.get(i) as string}` : s.kind === 'literal' ? s.value : '*')).join('/');
  }
  return { method, path: template, routerPath, params: parsed.variables.map((v) => v.fieldPath), shape: `${method} ${parsed.shape}` };
}

interface HttpRuleJson {
  get?: string;
  put?: string;
  post?: string;
  delete?: string;
  patch?: string;
  custom?: { kind?: string; path?: string };
  body?: string;
  responseBody?: string;
  additionalBindings?: HttpRuleJson[];
}

function httpRoutes(rule: HttpRuleJson, out: HttpRouteModel[], depth: number, where: string): void {
  for (const verb of HTTP_VERBS) {
    const p = rule[verb];
    if (typeof p === 'string' && p !== '') {
      const route = routeOf(verb.toUpperCase() as HttpRouteModel['method'], p, where);
      if (rule.body !== undefined && rule.body !== '') route.body = rule.body;
      if (rule.responseBody !== undefined && rule.responseBody !== '') route.responseBody = rule.responseBody;
      out.push(route);
    }
  }
  if (depth === 0) for (const extra of rule.additionalBindings ?? []) httpRoutes(extra, out, 1, where);
}

/** Everything needed to build models from one buf image. */
export class ModelBuilder {
  readonly registry: FileRegistry;
  private readonly httpExt: DescExtension | undefined;
  private readonly rulesExt: DescExtension | undefined;
  private readonly rulesCache = new Map<DescField, FieldRulesJson | undefined>();
  // Many methods share request types: one schema object per message, reused.
  private readonly schemaCache = new Map<string, { json: { [key: string]: Json }; simple: SimpleSchema }>();
  readonly rulesOf: RulesReader;

  /**
   * @param registry the image's files (file-registry.ts)
   * @param descriptorBytes file name → serialized FileDescriptorProto, for reflection
   */
  constructor(
    registry: FileRegistry,
    private readonly descriptorBytes: ReadonlyMap<string, Uint8Array> = new Map(),
  ) {
    this.registry = registry;
    this.httpExt = this.registry.getExtension('google.api.http');
    this.rulesExt = this.registry.getExtension('buf.validate.field');
    this.rulesOf = (field) => this.readRules(field);
  }

  private readRules(field: DescField): FieldRulesJson | undefined {
    if (this.rulesCache.has(field)) return this.rulesCache.get(field);
    let rules: FieldRulesJson | undefined;
    const ext = this.rulesExt;
    if (ext !== undefined && ext.message !== undefined && hasOption(field, ext)) {
      const value = getOption(field, ext);
      rules = toJson(ext.message, value as never, { registry: this.registry }) as FieldRulesJson;
    }
    this.rulesCache.set(field, rules);
    return rules;
  }

  private httpOf(method: DescService['methods'][number], where: string): HttpRouteModel[] {
    const ext = this.httpExt;
    if (ext === undefined || ext.message === undefined || !hasOption(method, ext)) return [];
    const json = toJson(ext.message, getOption(method, ext) as never, { registry: this.registry }) as HttpRuleJson;
    const routes: HttpRouteModel[] = [];
    httpRoutes(json, routes, 0, where);
    return routes;
  }

  private schemasOf(message: DescMessage): { json: { [key: string]: Json }; simple: SimpleSchema } {
    let cached = this.schemaCache.get(message.typeName);
    if (cached === undefined) {
      cached = { json: standaloneSchema(message, this.rulesOf) as { [key: string]: Json }, simple: simpleSchemaOf(message, this.rulesOf) };
      this.schemaCache.set(message.typeName, cached);
    }
    return cached;
  }

  private typeRef(message: DescMessage): TsTypeRef {
    const name = tsExportName(message);
    return { protoName: message.typeName, exportName: name, localName: name, module: message.file.name };
  }

  /** Base64 FileDescriptorProtos of `file` and its transitive imports, imports first. */
  private reflectionDescriptors(file: DescFile): DescriptorFile[] {
    const ordered: DescFile[] = [];
    const seen = new Set<string>();
    const visit = (f: DescFile, depth: number): void => {
      if (seen.has(f.proto.name) || depth > 64) return;
      seen.add(f.proto.name);
      for (const dep of f.dependencies) visit(dep, depth + 1);
      ordered.push(f);
    };
    visit(file, 0);
    const out: DescriptorFile[] = [];
    for (const f of ordered) {
      const bytes = this.descriptorBytes.get(f.proto.name);
      if (bytes !== undefined) out.push({ name: f.proto.name, bytes });
    }
    return out;
  }

  /** Every message type of one file, nested ones too (map entries are none), as ts-proto exports them. */
  messageTypes(protoPath: string): { typeName: string; exportName: string }[] {
    const file = this.registry.getFile(protoPath);
    if (file === undefined) throw new Error(`fw-gen: ${protoPath} missing from the buf image`);
    const out: { typeName: string; exportName: string }[] = [];
    const visit = (messages: readonly DescMessage[]): void => {
      for (const message of messages) {
        if (message.proto.options?.mapEntry === true) continue;
        out.push({ typeName: message.typeName, exportName: tsExportName(message) });
        visit(message.nestedMessages);
      }
    };
    visit(file.messages);
    return out;
  }

  /** The model of one user file (by root-relative proto path). */
  fileModel(protoPath: string): FileModel {
    const file = this.registry.getFile(protoPath);
    if (file === undefined) throw new Error(`fw-gen: ${protoPath} missing from the buf image`);
    const stem = file.name;
    const refs = new Map<string, TsTypeRef>();
    const ref = (m: DescMessage): TsTypeRef => {
      let r = refs.get(m.typeName);
      if (r === undefined) {
        r = this.typeRef(m);
        refs.set(m.typeName, r);
      }
      return r;
    };
    const schemaBuilder = new SchemaBuilder(this.rulesOf, '#/components/schemas/', 'canonical');
    const services: ServiceModel[] = file.services.map((service, si) => {
      const methods: MethodModel[] = service.methods.map((m, mi) => {
        const localName = handlerName(m.name);
        schemaBuilder.component(m.input);
        schemaBuilder.component(m.output);
        return {
          name: m.name,
          localName,
          path: `/${service.typeName}/${m.name}`,
          streaming: streamingModeOf(m.methodKind),
          idempotency: idempotencyOf(m.idempotency),
          comment: commentAt(file, [6, si, 2, mi]),
          request: ref(m.input),
          response: ref(m.output),
          http: this.httpOf(m, `${file.proto.name}: ${m.parent.typeName}.${m.name}`),
          defaultRoute: `/${service.name}/${localName}`,
          inputSchema: this.schemasOf(m.input).json,
          simpleSchema: this.schemasOf(m.input).simple,
        };
      });
      return {
        name: service.name,
        typeName: service.typeName,
        packageName: file.proto.package,
        comment: commentAt(file, [6, si]),
        methods,
      };
    });
    const methodTypes = new Set(refs.keys());
    const roots = file.services.flatMap((service) => service.methods.flatMap((m) => [m.input, m.output]));
    // Type names are settled only once colliding imports are aliased (below): placeholders until then.
    const compiled = compileValidators(roots, (m) => `\u0000${ref(m).protoName}\u0000`);
    const imports = [...refs.values()].sort((a, b) => (a.protoName < b.protoName ? -1 : a.protoName > b.protoName ? 1 : 0));
    const byName = new Map<string, TsTypeRef[]>();
    for (const r of imports) byName.set(r.exportName, [...(byName.get(r.exportName) ?? []), r]);
    for (const group of byName.values()) {
      if (group.length < 2) continue;
      // Two packages export the same name: alias the ones from other packages.
      for (const r of group) {
        const pkg = r.protoName.slice(0, r.protoName.length - r.exportName.length - 1);
        if (pkg !== file.proto.package) r.localName = `${pkg.split('.').join('_')}_${r.exportName}`;
      }
    }
    const schemas: { [name: string]: Json } = {};
    for (const [name, s] of schemaBuilder.defs) schemas[name] = s;
    return {
      protoPath: file.proto.name,
      stem,
      packageName: file.proto.package,
      services,
      imports: imports.filter((r) => methodTypes.has(r.protoName)),
      validators: {
        code: compiled.code.replace(/\u0000([^\u0000]+)\u0000/g, (_, name: string) => (refs.get(name) as TsTypeRef).localName),
        functions: [...compiled.functions].map(([typeName, fn]) => ({ typeName, fn, cel: compiled.cel.has(typeName) })),
        types: imports.filter((r) => !methodTypes.has(r.protoName)),
      },
      schemas,
      descriptorFiles: this.reflectionDescriptors(file),
    };
  }
}
