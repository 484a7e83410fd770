/**
 * The gate keeps what a decoded request came from on the request itself
 * until it is checked: the handler must get ts-proto's object back unchanged,
 * and a copy made in between (a middleware's `{ ...request, name: '' }`)
 * must be validated from its own content, not from the original's.
 */
import { methodGates } from '../../runtime/rpc/message-gate';
import { UserServiceDescriptor } from '../../generated/user.fw';

const gates = methodGates(UserServiceDescriptor, UserServiceDescriptor.methods.CreateUser);
if (gates === undefined) throw new Error('user.fw.ts should embed its descriptors');
const gate = gates.request;
const valid = { name: 'Ada Lovelace', email: 'ada@example.com' };

describe('MessageGate', () => {
  it('hands back the decoded request without anything of its own on it once checked', () => {
    const request = gate.fromJson(valid) as object;
    gate.check(request);
    expect(Object.getOwnPropertySymbols(request)).toEqual([]);
    expect(request).toEqual(UserServiceDescriptor.methods.CreateUser.requestCodec.fromJSON(valid));
  });

  it('validates a changed copy from its content, not from the original it was copied from', () => {
    const request = gate.fromJson(valid) as Record<string, unknown>;
    const copy = { ...request, name: '' };
    expect(() => gate.check(copy)).toThrow(/name/);
    gate.check(request);
  });

  it('validates a request checked twice from its content the second time', () => {
    const codec = UserServiceDescriptor.methods.CreateUser.requestCodec;
    const request = gate.fromBinary(codec.encode(codec.fromJSON(valid))) as Record<string, unknown>;
    gate.check(request);
    request.email = 'not an email';
    expect(() => gate.check(request)).toThrow(/email/);
  });
});
