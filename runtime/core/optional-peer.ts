/**
 * Integrations a plain service does not need (Redis stores, etcd discovery,
 * the OpenTelemetry SDK and exporters, uploads, sessions, …) are optional
 * peer dependencies of fw: loaded here on first use, so a service that never
 * configures one neither installs nor loads it. A missing one fails where it
 * is configured, naming the package and the command that installs it.
 */

/** Thrown when a configured integration's package is not installed. */
export class MissingPeerError extends Error {
  override name = 'MissingPeerError';
  readonly code = 'FW_MISSING_PEER';

  constructor(
    /** The npm package that is missing, e.g. `connect-redis`. */
    readonly packageName: string,
    /** What needed it, e.g. `redisSessionStore()`. */
    readonly feature: string,
  ) {
    super(`${feature} needs the package ${packageName}, which is not installed: run \`npm install ${packageName}\``);
  }
}

function isMissing(error: unknown, packageName: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  // Only the package itself missing: a broken install of it (a missing file inside) must surface as is.
  return code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.startsWith(`Cannot find module '${packageName}'`);
}

const loaded = new Map<string, unknown>();

/**
 * The module `packageName`, loaded once on first use.
 * @param feature what needs it, for the error message (`monitoring.tracing`, `upload()`)
 * @throws MissingPeerError when the package is not installed
 * @example
 * const { Etcd3 } = loadOptionalPeer<typeof import('etcd3')>('etcd3', "discovery provider 'etcd'");
 */
export function loadOptionalPeer<T>(packageName: string, feature: string): T {
  if (loaded.has(packageName)) return loaded.get(packageName) as T;
  let mod: unknown;
  try {
    // A plain require: fw's compiled output is CommonJS, and the ESM entry wraps it (one module instance).
    mod = require(packageName) as unknown;
  } catch (error) {
    if (isMissing(error, packageName)) throw new MissingPeerError(packageName, feature);
    throw error;
  }
  loaded.set(packageName, mod);
  return mod as T;
}
