/**
 * How a case row becomes one adapter's expectation: whether the case runs
 * there (and why not), the outcome in that protocol's form, and the actual
 * outcome cut to the fields the protocol carries.
 */
import { formOf, MALFORMED, reachesGateway, type Adapter, type Outcome } from './adapter-types';
import type { Case } from './case-table';

/** Why a case does not run on an adapter, or undefined when it does. */
export function notApplicable(c: Case, a: Adapter): string | undefined {
  if (c.onlyOver !== undefined && !c.onlyOver.includes(formOf(a))) return `a case about ${c.onlyOver.join(', ')} alone`;
  if (!a.kinds.includes(c.kind)) return a.kindsNot?.[c.kind] ?? `${a.name} has no ${c.kind} calls`;
  if (c.needs === 'transformError' && !reachesGateway(a)) return 'configureErrorHandling is the gateway\'s';
  // server.grpc() validates generated services with protovalidate; an inline JSON service there has no schema.
  if (c.needs === 'validation' && !reachesGateway(a) && a.codec === 'json') return 'an inline service on server.grpc() carries no input schema';
  if (a.namesOnlyKnownMethods === true && (c.method === 'Nope' || c.service !== undefined)) return 'a typed client only has the methods the service has';
  if (a.encodesItself === true && c.input === MALFORMED) return 'the client encodes every request itself';
  if (a.cannotCancel === true && c.cancelAfterMs !== undefined) return 'a datagram cannot be called back';
  return undefined;
}

/** The fields of `error` the adapter carries (a message only where the case names one). */
function cut(error: NonNullable<Outcome['error']>, c: Case, a: Adapter, code: string | undefined): NonNullable<Outcome['error']> {
  const out: NonNullable<Outcome['error']> = {};
  for (const field of a.carries) {
    if (field === 'code' && c.deadlineMs !== undefined && a.clientEnforcesDeadline === true) continue;
    if (field === 'code') out.code = code;
    else if (field === 'grpc') out.grpc = error.grpc;
    else if (field === 'http') out.http = error.http;
    else if (c.error?.message !== undefined) out.message = error.message;
  }
  return out;
}

/** The outcome the case expects over the adapter, in its protocol's form. */
export function expected(c: Case, a: Adapter): Outcome {
  if (c.error === undefined) return { items: [...c.items] };
  const want = c.error;
  return { items: [...c.items], error: cut({ grpc: want.grpc, http: want.http, message: want.message }, c, a, want.codeOn?.[formOf(a)] ?? want.code) };
}

/** The outcome cut to the fields the adapter carries. */
export function carried(outcome: Outcome, c: Case, a: Adapter): Outcome {
  if (outcome.error === undefined) return outcome;
  return { items: outcome.items, error: cut(outcome.error, c, a, outcome.error.code) };
}
