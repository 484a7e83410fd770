/**
 * Registration options of the example's UserService, shared by the gateway
 * (gateway.ts) and the plain gRPC server (main.ts): CreateMultipleUsers
 * validates and creates each streamed item on its own (spec 4.6 rule 2), so
 * it receives invalid items with their violations instead of having the
 * stream ended at the first one.
 */
export const userServiceOptions = {
  methods: { createMultipleUsers: { invalidItems: 'deliver' } },
} as const;
