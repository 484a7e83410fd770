/**
 * The call core's public surface: the service/method descriptor generated
 * code hands to the runtime, and the handler shapes derived from it.
 */
export type { ServiceDescriptor, MethodDescriptor, MessageCodec, HttpRule, JsonSchema, StreamingMode, IdempotencyLevel } from './descriptor';
export * from './handler-types';
