/**
 * Parsing grpc-js peer strings (`127.0.0.1:5000`, `[::1]:5000`,
 * `ipv6:[::1]:5000`) into address and port, for ClientInfo and rate-limit keys.
 */

/** `127.0.0.1:5000` / `[::1]:5000` / `ipv6:[::1]:5000` → address and port. */
export function splitPeer(peer: string): { address: string; port: number } {
  const bare = peer.replace(/^ipv[46]:/, '');
  const colon = bare.lastIndexOf(':');
  if (colon < 0) return { address: bare, port: 0 };
  const port = Number(bare.slice(colon + 1));
  if (!Number.isInteger(port)) return { address: bare, port: 0 };
  return { address: bare.slice(0, colon).replace(/^\[|\]$/g, ''), port };
}
