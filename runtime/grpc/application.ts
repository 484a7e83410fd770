// Placeholder until the gRPC runtime lands (issue 4).
export interface GrpcApplication { readonly kind: 'grpc' }
export function createGrpcApplication(): GrpcApplication { throw new Error('gRPC runtime not built yet'); }
