/**
 * Fresh trace ids are sliced from pooled hex text (runtime/rpc/tracing.ts):
 * every id must still be 32 lowercase hex digits and distinct, across the
 * 64-id hex chunks and the 4096-id CSPRNG refills.
 */
import { newTraceId, tracingFrom } from '../../runtime/rpc/tracing';

describe('trace ids', () => {
  it('are 32 lowercase hex digits and never repeat across chunk and pool boundaries', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3 * 4096 + 100; i++) {
      const id = newTraceId();
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(3 * 4096 + 100);
  });

  it('tracingFrom mints one when the client sent none and keeps a valid one', () => {
    expect(tracingFrom(undefined).traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(tracingFrom('abc-123').traceId).toBe('abc-123');
    expect(tracingFrom(undefined, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01').traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });
});
