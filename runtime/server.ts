/**
 * `server` is the entry point of the runtime: `server.http()` builds an HTTP
 * application, `server.grpc()` a gRPC one. Calling `server()` without choosing
 * gives HTTP, the default protocol (spec 4.1).
 *
 * The gRPC half is loaded on first use so that HTTP-only apps never pay for
 * grpc-js at start-up.
 *
 * @example
 * import { server } from 'fw';
 * const app = server.http();
 * app.get('/hello', (req, res) => res.json({ hello: 'world' }));
 * await app.listen(3000);
 */
import { createHttpApplication, type FwApplication } from './http/application';
import type { GrpcApplication } from './grpc/application';
import { provideGlobalMiddleware, type GlobalMiddlewareFactory } from './http/global-middleware';

// withOptions' cors/compression/rateLimit keys load fw/middleware's wrappers on first use only.
provideGlobalMiddleware(() => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { globalMiddleware } = require('./middleware/global-options') as typeof import('./middleware/global-options');
  return globalMiddleware as unknown as GlobalMiddlewareFactory;
});

export interface ServerFactory {
  (): FwApplication;
  http(): FwApplication;
  grpc(): GrpcApplication;
}

function http(): FwApplication {
  return createHttpApplication();
}

function grpc(): GrpcApplication {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('./grpc/application') as typeof import('./grpc/application');
  return mod.createGrpcApplication();
}

export const server: ServerFactory = Object.assign(() => http(), { http, grpc });
