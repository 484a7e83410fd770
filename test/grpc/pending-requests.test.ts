/**
 * The list of requests still arriving on fw's gRPC servers
 * (runtime/grpc/pending-requests.ts): calls leave it in any order, a
 * late request's stream is reset with CANCEL — never before its timeout, at
 * most two sweep periods after — and finished streams are left alone.
 * End to end (real sockets) the limit is covered by http2-limits.test.ts.
 */
import http2, { type ServerHttp2Stream } from 'node:http2';
import { PendingRequests, type PendingRequest } from '../../runtime/grpc/pending-requests';

interface FakeStream {
  destroyed: boolean;
  headersSent: boolean;
  state: { remoteClose: number };
  closedWith: number | undefined;
  close(code: number): void;
}

function call(): PendingRequest & { fake: FakeStream } {
  const fake: FakeStream = {
    destroyed: false,
    headersSent: false,
    state: { remoteClose: 0 },
    closedWith: undefined,
    close(code) {
      this.closedWith = code;
    },
  };
  return { stream: fake as unknown as ServerHttp2Stream, fake, pendingSince: 0, pendingPrev: undefined, pendingNext: undefined, pendingListed: false };
}

describe('PendingRequests', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('resets only requests past their timeout, never early, at most two periods late', () => {
    const list = new PendingRequests(400); // period 100 ms
    const first = call();
    list.watch(first);
    jest.advanceTimersByTime(350);
    const second = call();
    list.watch(second);
    jest.advanceTimersByTime(50); // 400 ms after the first arrived
    expect(first.fake.closedWith).toBeUndefined();
    jest.advanceTimersByTime(200); // 600 ms: two periods past its timeout at most
    expect(first.fake.closedWith).toBe(http2.constants.NGHTTP2_CANCEL);
    expect(second.fake.closedWith).toBeUndefined();
    jest.advanceTimersByTime(600);
    expect(second.fake.closedWith).toBe(http2.constants.NGHTTP2_CANCEL);
    list.stop();
  });

  it('keeps the list whole when calls leave from the head, middle and tail, twice or never listed', () => {
    const list = new PendingRequests(100);
    const calls = [call(), call(), call(), call()];
    for (const c of calls) list.watch(c);
    list.release(calls[1] as PendingRequest);
    list.release(calls[1] as PendingRequest);
    list.release(calls[0] as PendingRequest);
    list.release(calls[3] as PendingRequest);
    list.release(call());
    jest.advanceTimersByTime(1000);
    expect(calls.map((c) => c.fake.closedWith)).toEqual([undefined, undefined, http2.constants.NGHTTP2_CANCEL, undefined]);
    // Empty again: a new call is both head and tail.
    const last = call();
    list.watch(last);
    jest.advanceTimersByTime(1000);
    expect(last.fake.closedWith).toBe(http2.constants.NGHTTP2_CANCEL);
    list.stop();
  });

  it('leaves streams alone that finished, were answered or are gone', () => {
    const list = new PendingRequests(100);
    const [ended, answered, gone] = [call(), call(), call()];
    ended.fake.state.remoteClose = 1;
    answered.fake.headersSent = true;
    gone.fake.destroyed = true;
    for (const c of [ended, answered, gone]) list.watch(c);
    jest.advanceTimersByTime(1000);
    expect([ended, answered, gone].map((c) => c.fake.closedWith)).toEqual([undefined, undefined, undefined]);
    list.stop();
  });
});
