/**
 * A method's message gates, with message-gate.ts (and protovalidate behind
 * it) loaded on first use, so HTTP-only apps never load them.
 */
import type { MethodDescriptor, ServiceDescriptor } from './descriptor';
import type { GateOptions, MethodGates } from './message-gate';

export function gatesOf(descriptor: ServiceDescriptor, md: MethodDescriptor, options: GateOptions = {}): MethodGates | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('./message-gate') as typeof import('./message-gate');
  return mod.methodGates(descriptor, md, options);
}
