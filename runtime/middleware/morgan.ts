/**
 * `morgan(format)`: request logging through the `morgan` package.
 */
import type { Writable } from 'node:stream';
import type morganPackage from 'morgan';
import { loadOptionalPeer } from '../core/optional-peer';
import type { ConnectHandler } from './types';

/** morgan's predefined formats; any morgan format string is accepted too. */
export type LogFormat = 'combined' | 'common' | 'dev' | 'short' | 'tiny' | (string & {});

/** Options of {@link morgan}. */
export interface LogOptions {
  /** Where lines go. Default process.stdout. */
  stream?: Pick<Writable, 'write'>;
  /** Log when the request arrives rather than when the response is sent. */
  immediate?: boolean;
  /** Return true to leave a request out of the log. */
  skip?: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => boolean;
}

/**
 * Logs one line per request in the given format.
 *
 * @example
 * import { morgan } from 'fw/middleware';
 * app.use(morgan('combined'));
 */
export function morgan(format: LogFormat = 'combined', options: LogOptions = {}): ConnectHandler {
  // morgan is an optional peer of fw: installed only by services that log requests in its formats.
  const morganModule = loadOptionalPeer<typeof morganPackage>('morgan', 'morgan() from fw/middleware');
  return morganModule(format, {
    stream: options.stream as morganPackage.StreamOptions | undefined,
    immediate: options.immediate,
    skip: options.skip,
  }) as unknown as ConnectHandler;
}
