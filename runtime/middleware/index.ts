/**
 * `fw/middleware`: the spec 4.5 middleware, each a thin configured wrapper of
 * the package the Express world trusts for the job, with fw's safe defaults
 * (docs/middleware.md lists them). Every export is a Connect-style handler,
 * so it mounts with `app.use()` on fw, on Express, or on node:http.
 *
 * @example
 * import { server } from 'fw';
 * import { json, cors, helmet, staticFiles } from 'fw/middleware';
 * const app = server.http();
 * app.use(helmet()).use(cors()).use(json());
 * app.use('/assets', staticFiles({ root: './public', maxAge: '1d' }));
 */
export { json, type JsonOptions } from './json';
export { urlencoded, type UrlencodedOptions } from './urlencoded';
export { raw, type RawOptions } from './raw';
export { text, type TextOptions } from './text';
export type { BodyOptions } from './body-reader';
export { bodyLimit, DEFAULT_BODY_LIMIT, type ByteSize } from './body-limit';
export {
  multer,
  diskStorage,
  memoryStorage,
  DEFAULT_UPLOAD_LIMITS,
  type Upload,
  type UploadOptions,
  type UploadLimits,
  type UploadField,
  type UploadedFile,
  type IncomingFile,
  type FileFilterCallback,
  type UploadStorage,
} from './upload';
export { cors, type CorsOptions } from './cors';
export { compression, type CompressionOptions } from './compression';
export { rateLimit, type RateLimitOptions, type RateLimitStore } from './rate-limit';
export { helmet, type HelmetOptions } from './helmet';
export { morgan, type LogFormat, type LogOptions } from './morgan';
export { staticFiles, type StaticFilesOptions } from './static-files';
export { session, type SessionOptions, type SessionCookieOptions, type SessionStore } from './session';
export {
  redisRateLimitStore,
  redisSessionStore,
  type RedisCommandClient,
  type RedisRateLimitStoreOptions,
  type RedisSessionClient,
  type RedisSessionStoreOptions,
} from './redis-stores';
export { assertNoPrototypeKeys } from './prototype-guard';
export { MiddlewareError, type MiddlewareErrorType } from './middleware-error';
export { globalMiddleware, type GlobalMiddlewareOptions } from './global-options';
export type { ConnectHandler, NextFunction } from './types';
