/**
 * The request type of generated clients (Node gRPC client and browser
 * client): a message with every field optional, recursively.
 */

/** A message with every field optional; unset fields take their proto3 defaults when sent. */
export type PartialMessage<T> = T extends Date | Uint8Array | string | number | boolean | undefined
  ? T
  : T extends ReadonlyArray<infer U>
    ? ReadonlyArray<PartialMessage<U>>
    : T extends { $case: string }
      ? { [K in keyof Omit<T, '$case'>]?: PartialMessage<T[K]> } & { $case: T['$case'] }
      : T extends object
        ? { [K in keyof T]?: PartialMessage<T[K]> }
        : T;
