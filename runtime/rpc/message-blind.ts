/**
 * Interceptors that never read `call.request`. While only such interceptors
 * are installed, a forwarded call may carry its protobuf bytes through
 * without decoding them (the gateway's pass-through).
 */
const messageBlind = new WeakSet<object>();

/** Marks an interceptor that never reads `call.request`: calls may still pass bytes through it. */
export function markMessageBlind<T extends object>(interceptor: T): T {
  messageBlind.add(interceptor);
  return interceptor;
}

/** True when `interceptor` was marked as never reading `call.request`. */
export function isMessageBlind(interceptor: object): boolean {
  return messageBlind.has(interceptor);
}
