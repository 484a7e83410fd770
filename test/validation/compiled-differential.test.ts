/**
 * The validators fw-gen compiles from buf.validate's standard rules against
 * @bufbuild/protovalidate, the interpreter they replace: for seeded random
 * messages drawn around every rule's bounds (support/rule-values.ts), the
 * gate forced onto protovalidate (`validation: 'protovalidate'`) and the
 * gate on the compiled validator (`validation: 'compiled'`) must both give
 * exactly what protovalidate's own `validate` gives for the protobuf-es
 * message the case was built as: the same violations (field path, rule id,
 * message) in the same order, or the same runtime error. The fixtures
 * (fixtures/rules/*.proto and the example service's proto/user.proto) carry
 * every standard rule of validate.proto, and every rule id must fail in at
 * least one case of a run, so a rule the fixtures or the values stop
 * reaching fails the test instead of passing it unnoticed.
 *
 * FW_RULES_SEED=<n> replays a run (the seed is printed on failure);
 * FW_RULES_CASES=<n> sets how many messages of each type are checked
 * (default 200; below that, rules no case failed are printed, not failed);
 * FW_RULES_COUNTS=1 prints how often each rule failed and each type's
 * valid/invalid/error share.
 */
import { create, createFileRegistry, fromBinary, getOption, toBinary, toJsonString, type DescMessage, type FileRegistry, type Message } from '@bufbuild/protobuf';
import { nestedTypes, pathToString } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { createValidator, type Validator } from '@bufbuild/protovalidate';
import { file_buf_validate_validate, predefined } from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';
import type { MessageCodec, ServiceDescriptor } from '../../runtime/rpc/descriptor';
import { methodGates, type MessageGate } from '../../runtime/rpc/message-gate';
import type { FieldViolation } from '../../runtime/validation/violations';
import { UserServiceDescriptor } from '../../generated/user.fw';
import { prng } from '../support/prng';
import { CompositeRulesServiceDescriptor } from './generated-rules/composites.fw';
import { NumberRulesServiceDescriptor } from './generated-rules/numbers.fw';
import { PresenceRulesServiceDescriptor } from './generated-rules/presence.fw';
import { StringRulesServiceDescriptor } from './generated-rules/strings.fw';
import { TimeRulesServiceDescriptor } from './generated-rules/time.fw';
import { redrawFields, ruleMessage } from './support/rule-values';

const SEED = process.env['FW_RULES_SEED'] !== undefined ? Number(process.env['FW_RULES_SEED']) : Math.floor(Math.random() * 2 ** 31);
/** Messages of each of the 40-odd types: 200 each make some 9,000 cases, each validated three times. */
const DEFAULT_CASES = 200;
const CASES = Number(process.env['FW_RULES_CASES'] ?? DEFAULT_CASES);
/** Recursive and nested messages are followed this deep. */
const MAX_DEPTH = 2;
/** Share of cases steered towards validity: the fields the oracle complains about are drawn again, up to this many rounds. */
const STEERED = 0.4;
const STEER_ROUNDS = 8;

const SERVICES: readonly ServiceDescriptor[] = [
  NumberRulesServiceDescriptor,
  StringRulesServiceDescriptor,
  TimeRulesServiceDescriptor,
  CompositeRulesServiceDescriptor,
  PresenceRulesServiceDescriptor,
  UserServiceDescriptor,
];

/**
 * Rule ids protovalidate's evaluator reports itself rather than through a
 * predefined CEL rule of validate.proto: `required` (fields and oneofs),
 * `enum.defined_only`, Any's `in`/`not_in` and message-level `oneof`.
 */
const EVALUATOR_RULE_IDS = ['required', 'enum.defined_only', 'any.in', 'any.not_in', 'message.oneof'];

/** `<type>.example` only documents valid values: its expression is `true`, so it never fails. */
const NEVER_FAILS = (id: string): boolean => id.endsWith('.example');

/** Every standard rule id: the ids of the predefined CEL rules on validate.proto's rule fields, and the evaluator's own. */
function standardRuleIds(): string[] {
  const ids = new Set(EVALUATOR_RULE_IDS);
  for (const type of nestedTypes(file_buf_validate_validate)) {
    if (type.kind !== 'message') continue;
    for (const field of type.fields) for (const rule of getOption(field, predefined).cel) ids.add(rule.id);
  }
  return [...ids].sort();
}

/** What validating a message gives: its violations in order (none when valid), or the error that stopped it. */
type Outcome = { readonly violations: readonly FieldViolation[] } | { readonly error: string };

function outcomeOf(run: () => FieldViolation[] | undefined): Outcome {
  try {
    return { violations: run() ?? [] };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function oracleOutcome(validator: Validator, schema: DescMessage, message: Message): Outcome {
  return outcomeOf(() => {
    const result = validator.validate(schema, message as never);
    if (result.kind === 'error') throw result.error;
    if (result.kind === 'valid') return undefined;
    return result.violations.map((v) => ({ field: pathToString(v.field), rule: v.ruleId, message: v.message }));
  });
}

/** One message type behind one method's gates. */
interface Subject {
  readonly label: string;
  readonly schema: DescMessage;
  readonly codec: MessageCodec<unknown>;
  readonly interpreted: MessageGate;
  readonly compiled: MessageGate;
  /** How fw-gen compiled the type: `standard` (every rule), `cel` (protovalidate checks its CEL rules), or `none` (interpreted). */
  readonly compiledAs: 'standard' | 'cel' | 'none';
}

/** The registry protovalidate reads the case messages with: built here from the embedded descriptors, not by the runtime's cache. */
function registryOf(service: ServiceDescriptor): FileRegistry {
  const files = (service.fileDescriptorProtos ?? []).map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
  return createFileRegistry(create(FileDescriptorSetSchema, { file: files }));
}

function subjectsOf(service: ServiceDescriptor, registry: FileRegistry): Subject[] {
  const subjects = new Map<string, Subject>();
  for (const [name, method] of Object.entries(service.methods)) {
    const interpreted = methodGates(service, method, { validation: 'protovalidate' });
    const compiled = methodGates(service, method, { validation: 'compiled' });
    if (interpreted === undefined || compiled === undefined) throw new Error(`${service.name}.${name}: no gates`);
    for (const side of ['request', 'response'] as const) {
      const typeName = side === 'request' ? method.requestType : method.responseType;
      if (subjects.has(typeName)) continue;
      const schema = registry.getMessage(typeName);
      if (schema === undefined) throw new Error(`${typeName} is not in ${service.name}'s descriptors`);
      const codec = (side === 'request' ? method.requestCodec : method.responseCodec) as MessageCodec<unknown>;
      const entry = service.validators?.[typeName];
      const compiledAs = entry === undefined ? 'none' : typeof entry === 'function' ? 'standard' : 'cel';
      subjects.set(typeName, { label: `${typeName} (${service.name}.${name} ${side})`, schema, codec, interpreted: interpreted[side], compiled: compiled[side], compiledAs });
    }
  }
  return [...subjects.values()];
}

const TARGETS = SERVICES.map((service) => {
  const registry = registryOf(service);
  return { service, validator: createValidator({ registry }), subjects: subjectsOf(service, registry) };
});

/** Rule id → how many violations of it the run's cases had. */
const failedRuleIds = new Map<string, number>();
/** Message type → its cases by the oracle's verdict, printed with FW_RULES_COUNTS=1 to judge the values' aim. */
const verdicts = new Map<string, { valid: number; invalid: number; error: number }>();

const where = (label: string, index: number): string => `seed ${SEED} (replay with FW_RULES_SEED=${SEED}), ${label}, case ${index}`;

describe('compiled validators against protovalidate', () => {
  for (const { service, validator, subjects } of TARGETS) {
    describe(service.name, () => {
      it.each(subjects.map((s) => [s.schema.typeName, s] as const))('%s: the same violations in the same order', (_name, subject) => {
        const rand = prng(SEED ^ hash(subject.schema.typeName));
        const now = Date.now();
        for (let index = 0; index < CASES; index++) {
          const options = { maxDepth: MAX_DEPTH, now };
          const message = ruleMessage(rand, subject.schema, options);
          let expected = oracleOutcome(validator, subject.schema, message);
          if (rand() < STEERED) {
            for (let round = 0; round < STEER_ROUNDS && 'violations' in expected && expected.violations.length > 0; round++) {
              redrawFields(rand, subject.schema, message, expected.violations.map((v) => topField(v.field)), options);
              expected = oracleOutcome(validator, subject.schema, message);
            }
          }
          const bytes = toBinary(subject.schema, message);
          const interpreted = outcomeOf(() => subject.interpreted.violations(subject.codec.decode(bytes)));
          const compiled = outcomeOf(() => subject.compiled.violations(subject.codec.decode(bytes)));
          const context = (): string => `${where(subject.label, index)}\nmessage: ${describeMessage(subject.schema, message)}`;
          expectSame(context, 'the gate on protovalidate', interpreted, expected);
          // A type mixing compiled rules with CEL reports the compiled violations first, then protovalidate's for CEL.
          if (subject.compiledAs === 'cel') expectSame(context, 'the gate on the compiled validator (in any order)', sorted(compiled), sorted(expected));
          else expectSame(context, 'the gate on the compiled validator', compiled, expected);
          const tally = verdicts.get(subject.schema.typeName) ?? { valid: 0, invalid: 0, error: 0 };
          verdicts.set(subject.schema.typeName, tally);
          if ('error' in expected) tally.error++;
          else if (expected.violations.length === 0) tally.valid++;
          else tally.invalid++;
          if ('violations' in expected) for (const v of expected.violations) failedRuleIds.set(v.rule, (failedRuleIds.get(v.rule) ?? 0) + 1);
        }
      });
    });
  }

  it('compiles every ruled message type of a proto3 file', () => {
    const notCompiled = TARGETS.flatMap((t) => t.subjects)
      .filter((s) => s.compiledAs === 'none' && s.schema.file.edition === 999 && s.interpreted.ruled)
      .map((s) => s.schema.typeName);
    expect(notCompiled).toEqual([]);
  });

  // Needs the whole run at the default scale or more: with `-t` picking a few
  // types, or a handful of cases, some rules are bound to stay unreached.
  it('failed every standard rule of validate.proto at least once', () => {
    const uncovered = standardRuleIds().filter((id) => !NEVER_FAILS(id) && !failedRuleIds.has(id));
    if (uncovered.length > 0) console.log(`seed ${SEED} (replay with FW_RULES_SEED=${SEED}), ${CASES} cases of each type: rule ids no case failed:\n  ${uncovered.join('\n  ')}`);
    if (CASES < DEFAULT_CASES) return;
    if (process.env['FW_RULES_COUNTS'] === '1') console.log([...verdicts].map(([type, v]) => `${type} ${JSON.stringify(v)}`).join('\n'), '\n', [...failedRuleIds].sort((a, b) => a[1] - b[1]).map(([id, n]) => `${id} ${n}`).join('\n'));
    expect(uncovered).toEqual([]);
  });
});

/** The violations in a fixed order (field, rule, message), for comparing as a multiset. */
function sorted(outcome: Outcome): Outcome {
  if (!('violations' in outcome)) return outcome;
  const key = (v: FieldViolation): string => `${v.field}\u0000${v.rule}\u0000${v.message}`;
  return { violations: [...outcome.violations].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)) };
}

/** Fails with the seed, the case and the message in front of jest's diff. */
function expectSame(context: () => string, side: string, actual: Outcome, expected: Outcome): void {
  try {
    expect(actual).toEqual(expected);
  } catch (error) {
    if (error instanceof Error) error.message = `${context()}\n${side} differs from protovalidate:\n${error.message}`;
    throw error;
  }
}

function describeMessage(schema: DescMessage, message: Message): string {
  try {
    return toJsonString(schema, message);
  } catch {
    return '(no JSON form)';
  }
}

/** The top-level field (or oneof) a violation's path starts with: `a` of `a.b[0]`, `m` of `m["k"]`. */
function topField(path: string): string {
  return /^[A-Za-z0-9_]*/.exec(path)?.[0] ?? '';
}

/** A type name's share of the seed, so each type draws its own sequence and `-t` on one type replays it. */
function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}
