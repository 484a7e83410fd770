/**
 * `multer(options)`: multipart uploads through multer, with fw's defaults
 * (10 MiB a file, 1000 parts, 1000 fields, 10 files) and multer's errors
 * turned into clear 400/413 refusals. Multer removes the partial file of an
 * upload that fails; fw tests that on disk.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type multerPackage from 'multer';
import { loadOptionalPeer } from '../core/optional-peer';
import { MiddlewareError, statusOf } from './middleware-error';
import { assertNoPrototypeKeys } from './prototype-guard';
import type { ConnectHandler, NextFunction } from './types';
import type { UploadedFile } from '../http/request';

/** One uploaded file as `req.file` / `req.files` hold it (declared with FwRequest, which carries it). */
export type { UploadedFile } from '../http/request';

/** The file as the filter sees it: before any byte is stored. */
export interface IncomingFile {
  fieldname: string;
  originalname: string;
  encoding: string;
  mimetype: string;
}

/** `cb(error)` rejects the file (400), `cb(null, true)` accepts, `cb(null, false)` skips it silently. */
export type FileFilterCallback = (error: Error | null, accept?: boolean) => void;

/** Where accepted files go: multer's disk/memory engines or any multer storage engine. */
export type UploadStorage = multerPackage.StorageEngine;

/** Upload limits; fw's defaults in brackets. */
export interface UploadLimits {
  /** Bytes per file [10 MiB]; over it answers 413. */
  fileSize?: number;
  /** Parts (files + fields) [1000]; over it answers 413. */
  parts?: number;
  /** Files [10]. */
  files?: number;
  /** Non-file fields [bounded by `parts`]. */
  fields?: number;
  /** Bytes per field value [1 MiB]. */
  fieldSize?: number;
  /** Bytes per field name [100]. */
  fieldNameSize?: number;
}

/** Options of {@link multer} (spec 4.5). */
export interface UploadOptions {
  /** Directory for uploaded files (created if missing). Without `dest` or `storage`, files stay in memory. */
  dest?: string;
  /** A multer storage engine; takes precedence over `dest`. */
  storage?: UploadStorage;
  limits?: UploadLimits;
  fileFilter?: (req: IncomingMessage, file: IncomingFile, cb: FileFilterCallback) => void;
  /** Keep the client's full path in `originalname`. Default false. */
  preservePath?: boolean;
}

/** Field list for {@link Upload.fields}. */
export interface UploadField {
  name: string;
  maxCount?: number;
}

/** What `multer()` returns: one middleware factory per upload shape. */
export interface Upload {
  /** One file in `field` → `req.file`. */
  single(field: string): ConnectHandler;
  /** Up to `maxCount` files in `field` → `req.files` (an array). */
  array(field: string, maxCount?: number): ConnectHandler;
  /** Files from several fields → `req.files` keyed by field. */
  fields(fields: readonly UploadField[]): ConnectHandler;
  /** Text fields only; any file answers 400. */
  none(): ConnectHandler;
  /** Files from any field → `req.files`. */
  any(): ConnectHandler;
}

/** fw's upload limits (DESIGN.md "Defaults that keep users safe"). */
export const DEFAULT_UPLOAD_LIMITS: Readonly<Required<Omit<UploadLimits, 'fields'>>> = Object.freeze({
  fileSize: 10 * 1024 * 1024,
  parts: 1000,
  files: 10,
  fieldSize: 1024 * 1024,
  fieldNameSize: 100,
});

type EffectiveLimits = typeof DEFAULT_UPLOAD_LIMITS & UploadLimits;

const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  LIMIT_PART_COUNT: 413,
  LIMIT_FILE_SIZE: 413,
  LIMIT_FILE_COUNT: 413,
  LIMIT_FIELD_KEY: 413,
  LIMIT_FIELD_VALUE: 413,
  LIMIT_FIELD_COUNT: 413,
  LIMIT_FIELD_NESTING: 413,
  LIMIT_FIELD_ARRAY_INDEX: 413,
  LIMIT_UNEXPECTED_FILE: 400,
  MISSING_FIELD_NAME: 400,
  INVALID_FIELD_NAME: 400,
  STREAM_DESTROYED: 400,
};

function limitMessage(code: string, limits: EffectiveLimits): string | undefined {
  switch (code) {
    case 'LIMIT_FILE_SIZE':
      return `Uploaded file is larger than the ${limits.fileSize}-byte limit`;
    case 'LIMIT_PART_COUNT':
      return `Upload has more than ${limits.parts} parts`;
    case 'LIMIT_FILE_COUNT':
      return `Upload has more than ${limits.files} files`;
    case 'LIMIT_FIELD_COUNT':
      return `Upload has more than ${String(limits.fields)} fields`;
    case 'LIMIT_FIELD_VALUE':
      return `A form field value is larger than the ${limits.fieldSize}-byte limit`;
    case 'LIMIT_FIELD_KEY':
      return `A form field name is longer than ${limits.fieldNameSize} bytes`;
    default:
      return undefined;
  }
}

function uploadError(error: unknown, limits: EffectiveLimits, multerErrorClass: typeof multerPackage.MulterError): MiddlewareError {
  if (error instanceof MiddlewareError) return error;
  const cause = { cause: error };
  if (error instanceof multerErrorClass) {
    const status = STATUS_BY_CODE[error.code] ?? 400;
    const field = error.field === undefined ? '' : ` (field "${error.field}")`;
    const message = limitMessage(error.code, limits) ?? error.message;
    return new MiddlewareError(status, `${message}${field}`, status === 413 ? 'upload.limit' : 'upload.malformed', cause);
  }
  // Storage failures (disk full, permissions) are ours, not the client's.
  if (error !== null && typeof error === 'object' && 'syscall' in error) {
    return new MiddlewareError(500, 'Could not store the uploaded file', 'internal', cause);
  }
  const message = error instanceof Error ? error.message : String(error);
  const status = statusOf(error);
  if (status !== undefined) return new MiddlewareError(status, message, status >= 500 ? 'internal' : 'upload.rejected', cause);
  // Anything else is busboy refusing a malformed body, or the fileFilter refusing a file.
  const fromFilter = error instanceof Error && !/^(Unexpected end of form|Malformed|Multipart|Request (aborted|closed))/i.test(message);
  return new MiddlewareError(400, fromFilter ? `Upload rejected: ${message}` : `Malformed multipart body: ${message}`, fromFilter ? 'upload.rejected' : 'upload.malformed', cause);
}

/** multer, an optional peer of fw: installed only by services that take uploads. */
function loadMulter(feature: string): typeof multerPackage {
  return loadOptionalPeer<typeof multerPackage>('multer', feature);
}

interface BodyRequest extends IncomingMessage {
  body?: unknown;
}

/**
 * Multipart upload middleware (spec 4.5 export `multer`).
 *
 * @example
 * import { multer } from 'fw/middleware';
 * const upload = multer({
 *   dest: 'uploads/',
 *   limits: { fileSize: 10 * 1024 * 1024 },
 *   fileFilter: (req, file, cb) => (file.mimetype.startsWith('image/') ? cb(null, true) : cb(new Error('Only images'))),
 * });
 * app.post('/avatar', upload.single('avatar'), (req, res) => {
 *   if (!req.file) return res.status(400).json({ error: 'No file uploaded' });
 *   res.json({ filename: req.file.filename, originalname: req.file.originalname, size: req.file.size });
 * });
 */
export function multer(options: UploadOptions = {}): Upload {
  const limits: EffectiveLimits = { ...DEFAULT_UPLOAD_LIMITS, ...options.limits };
  const multerModule = loadMulter('multer() from fw/middleware');
  const instance = multerModule({
    storage: options.storage ?? (options.dest === undefined ? multerModule.memoryStorage() : multerModule.diskStorage({ destination: options.dest })),
    limits,
    preservePath: options.preservePath ?? false,
    fileFilter: options.fileFilter as multerPackage.Options['fileFilter'],
  });

  const wrap = (handler: unknown): ConnectHandler => {
    const inner = handler as ConnectHandler;
    return function fwUpload(req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
      inner(req, res, (error?: unknown) => {
        if (error !== undefined && error !== null) {
          next(uploadError(error, limits, multerModule.MulterError));
          return;
        }
        try {
          assertNoPrototypeKeys((req as BodyRequest).body, 'form body');
        } catch (refusal) {
          next(refusal);
          return;
        }
        next();
      });
    };
  };

  return {
    single: (field) => wrap(instance.single(field)),
    array: (field, maxCount) => wrap(instance.array(field, maxCount)),
    fields: (fields) => wrap(instance.fields(fields.map((f) => ({ ...f })))),
    none: () => wrap(instance.none()),
    any: () => wrap(instance.any()),
  };
}

/**
 * Multer's disk engine, for choosing the directory or file name per file.
 *
 * @example
 * const upload = multer({ storage: diskStorage({ destination: 'uploads/', filename: (req, file, cb) => cb(null, `${Date.now()}-${file.originalname}`) }) });
 */
export function diskStorage(options: multerPackage.DiskStorageOptions): UploadStorage {
  return loadMulter('diskStorage() from fw/middleware').diskStorage(options);
}
/**
 * Keeps files in memory as `file.buffer` (the default when there is no `dest`).
 *
 * @example
 * const upload = multer({ storage: memoryStorage(), limits: { fileSize: 1024 * 1024 } });
 */
export function memoryStorage(): UploadStorage {
  return loadMulter('memoryStorage() from fw/middleware').memoryStorage();
}
