/** The name of an RPC's handler method (and client method): `SayHello` → `sayHello`. */
export function handlerName(rpcName: string): string {
  return rpcName.charAt(0).toLowerCase() + rpcName.slice(1);
}
