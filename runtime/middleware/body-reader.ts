/**
 * What `json`, `urlencoded`, `raw` and `text` share: resolving the size limit
 * (explicit option, else the app's `maxRequestBodySize`, else 1 MiB), one
 * reader (read-body.ts) per limit, and error translation.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { appBodyLimit, toBytes, type ByteSize } from './body-limit';
import { bodyParserError } from './body-parser-errors';
import type { VerifyBody } from '../core/read-body';
import type { ConnectHandler, NextFunction } from './types';

/** Options every body parser accepts. */
export interface BodyOptions {
  /** Largest body accepted; default the app's `maxRequestBodySize`, else 1 MiB. */
  limit?: ByteSize;
  /** Content types to parse (type-is patterns), or a predicate. */
  type?: string | string[] | ((req: IncomingMessage) => boolean);
  /** Inflate gzip/deflate/br bodies (the limit applies to the inflated size). Default true. */
  inflate?: boolean;
  /** Called with the raw bytes before parsing; throwing refuses the body with 403 (`entity.verify.failed`). */
  verify?: VerifyBody;
}

/** Builds the reading middleware for one byte limit. */
export type ParserFactory = (limit: number) => ConnectHandler;

/** Runs after a successful parse; throwing refuses the request. */
export type AfterParse = (req: IncomingMessage) => void;

/**
 * Wraps a body reader so that its limit follows the request's effective limit
 * and its errors reach `next` as clear {@link MiddlewareError}s.
 */
export function createBodyReader(
  kind: string,
  explicitLimit: ByteSize | undefined,
  factory: ParserFactory,
  afterParse?: AfterParse,
): ConnectHandler {
  const fixed = explicitLimit === undefined ? undefined : factory(toBytes(explicitLimit, 'limit'));
  const byLimit = new Map<number, ConnectHandler>();

  function parserFor(req: IncomingMessage): ConnectHandler {
    if (fixed !== undefined) return fixed;
    const limit = appBodyLimit(req);
    let parser = byLimit.get(limit);
    if (parser === undefined) {
      parser = factory(limit);
      byLimit.set(limit, parser);
    }
    return parser;
  }

  return function fwBodyReader(req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    parserFor(req)(req, res, (error?: unknown) => {
      if (error !== undefined && error !== null) {
        next(bodyParserError(error, kind));
        return;
      }
      if (afterParse !== undefined) {
        try {
          afterParse(req);
        } catch (refusal) {
          next(bodyParserError(refusal, kind));
          return;
        }
      }
      next();
    });
  };
}
