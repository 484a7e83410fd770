/** Request metadata as a call's middleware, handlers and RequestContext read it (the call core's one type). */
export type { CallMetadata } from '../rpc/call-types';
