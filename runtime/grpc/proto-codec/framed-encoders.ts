/**
 * Which serializers can also write the gRPC message prefix themselves: the
 * compiled codecs register their framing twin here, and fw's HTTP/2 server
 * asks for it per method (an uncompressed reply is then one buffer, not a
 * serialized one copied behind a prefix). Kept apart from the compiler so
 * the server does not load it.
 */
type Serialize = (value: unknown) => Buffer;

const framedBySerializer = new WeakMap<Serialize, Serialize>();

/** Records that `framed(value)` is `serialize(value)` behind a 5-byte uncompressed prefix. */
export function registerFramedEncoder(serialize: Serialize, framed: Serialize): void {
  framedBySerializer.set(serialize, framed);
}

/** The framing twin of `serialize`, if it has one. */
export function framedEncoderOf(serialize: Serialize): Serialize | undefined {
  return framedBySerializer.get(serialize);
}
