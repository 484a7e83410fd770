/**
 * The one deadline reader (runtime/rpc/deadline.ts): each wire form's field,
 * its malformed values, and the bounds every transport gets.
 */
import { connectDeadline, envelopeDeadline, grpcWebDeadline, httpDeadline, MAX_TIMEOUT_MS } from '../../runtime/rpc/deadline';

describe('call deadlines', () => {
  it('HTTP/JSON reads grpc-timeout as grpc-gateway does: malformed values are ignored', () => {
    expect(httpDeadline({ 'grpc-timeout': '250m' })?.ms).toBe(250);
    expect(httpDeadline({ 'grpc-timeout': '2S' })?.ms).toBe(2000);
    expect(httpDeadline({ 'grpc-timeout': '500u' })?.ms).toBe(1);
    expect(httpDeadline({ 'grpc-timeout': 'soon' })).toBeUndefined();
    expect(httpDeadline({})).toBeUndefined();
  });

  it('Connect reads connect-timeout-ms and refuses a malformed one with INVALID_ARGUMENT', () => {
    expect(connectDeadline({ 'connect-timeout-ms': '1500' })?.ms).toBe(1500);
    expect(connectDeadline({})).toBeUndefined();
    expect(() => connectDeadline({ 'connect-timeout-ms': '1.5' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    // Ten digits may pass what a timer holds: the deadline is capped there rather than firing at once.
    expect(connectDeadline({ 'connect-timeout-ms': '9999999999' })?.ms).toBe(MAX_TIMEOUT_MS);
  });

  it('gRPC-Web reads grpc-timeout and refuses a malformed one', () => {
    expect(grpcWebDeadline({ 'grpc-timeout': '3S' })?.ms).toBe(3000);
    expect(() => grpcWebDeadline({ 'grpc-timeout': '3s' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('WebSocket, TCP and UDP read the envelope timeout in ms', () => {
    const before = Date.now();
    const deadline = envelopeDeadline(40);
    expect(deadline?.ms).toBe(40);
    expect(deadline?.at).toBeGreaterThanOrEqual(before + 40);
    expect(envelopeDeadline(undefined)).toBeUndefined();
    for (const bad of [0, -1, 1.5, '10', MAX_TIMEOUT_MS + 1]) expect(() => envelopeDeadline(bad)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });
});
