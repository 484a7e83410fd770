/**
 * The gateway gRPC transport's CancelWatch (runtime/gateway/grpc/cancel-watch.ts):
 * its lazy abort signal and its signal-free side door (core/cancellation.ts)
 * agree on when a call is cancelled, listeners run once, and a 'cancelled'
 * after the call was answered (grpc-js emits one on every stream close) is
 * not a cancel. End to end, pass-through.test.ts shows a caller's cancel
 * reaching the instance through the side door.
 */
import { EventEmitter } from 'node:events';
import { CancelWatch } from '../../runtime/gateway/grpc/cancel-watch';
import { CANCELLATION } from '../../runtime/core/cancellation';
import { createContext } from '../../runtime/gateway/gateway-core';

class FakeCall extends EventEmitter {
  cancelled = false;
  cancel(): void {
    this.cancelled = true;
    this.emit('cancelled', 'cancelled');
  }
}

describe('CancelWatch', () => {
  it('runs side-door listeners once on a cancel, aborts a signal made before or after, and builds no signal for them', () => {
    const call = new FakeCall();
    const watch = new CancelWatch(call);
    const seen: string[] = [];
    const first = (): void => void seen.push('first');
    const second = (): void => void seen.push('second');
    const removed = (): void => void seen.push('removed');
    watch.onCancel(first);
    watch.onCancel(second);
    watch.onCancel(removed);
    watch.offCancel(removed);
    expect(watch.cancelled).toBe(false);
    expect(call.listenerCount('cancelled')).toBe(1);
    call.cancel();
    call.emit('cancelled');
    expect(seen).toEqual(['first', 'second']);
    expect(watch.cancelled).toBe(true);
    expect(watch.signal.aborted).toBe(true);
    // A listener added after the cancel runs at once.
    watch.onCancel(() => seen.push('late'));
    expect(seen).toEqual(['first', 'second', 'late']);
  });

  it('aborts a signal read before the cancel too', () => {
    const call = new FakeCall();
    const watch = new CancelWatch(call);
    const signal = watch.signal;
    let listened = 0;
    watch.onCancel(() => listened++);
    expect(call.listenerCount('cancelled')).toBe(1);
    call.cancel();
    expect(signal.aborted).toBe(true);
    expect(listened).toBe(1);
  });

  it("ignores the 'cancelled' a stream emits after the call was answered", () => {
    const call = new FakeCall();
    const watch = new CancelWatch(call);
    let listened = 0;
    watch.onCancel(() => listened++);
    watch.finish();
    call.cancel();
    expect(listened).toBe(0);
    expect(watch.cancelled).toBe(false);
    expect(watch.signal.aborted).toBe(false);
  });

  it('is the side door of the context it is given to, next to the lazy signal', () => {
    const call = new FakeCall();
    const watch = new CancelWatch(call);
    const context = createContext('grpc', { id: 'p', address: '127.0.0.1', port: 1 }, {}, {}, { traceId: 't' }, () => watch.signal, undefined, undefined, watch);
    expect((context as { [CANCELLATION]?: unknown })[CANCELLATION]).toBe(watch);
    call.cancel();
    expect(context.signal.aborted).toBe(true);
  });
});
