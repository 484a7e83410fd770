/** The runtime's streaming modes (runtime/rpc/descriptor.ts), from a proto method kind. */
export type StreamingMode = 'none' | 'server' | 'client' | 'bidirectional';

const BY_KIND: Record<string, StreamingMode> = {
  unary: 'none',
  server_streaming: 'server',
  client_streaming: 'client',
  bidi_streaming: 'bidirectional',
};

/** Maps @bufbuild/protobuf's `methodKind` to the descriptor's `streaming`. */
export function streamingModeOf(methodKind: string): StreamingMode {
  return BY_KIND[methodKind] ?? 'none';
}
