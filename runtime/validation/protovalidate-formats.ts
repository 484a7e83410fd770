/**
 * The well-known string formats (email, hostname, IP and IP prefix, URI,
 * host and port) exactly as @bufbuild/protovalidate checks them: its own
 * functions, which the CEL functions of buf.validate are built on. The
 * package exports only its validator, so they are read from its compiled
 * `lib.js` next to the entry point (the version is pinned in
 * package-lock.json, and the differential test against the interpreter
 * fails if they ever disagree). Loaded on the first check.
 */
import * as path from 'node:path';

interface FormatLib {
  isEmail(this: string): boolean;
  isHostname(this: string): boolean;
  isIp(this: string, version?: number): boolean;
  isIpPrefix(this: string, version?: number, strict?: boolean): boolean;
  isUri(this: string): boolean;
  isUriRef(this: string): boolean;
  isHostAndPort(this: string, portRequired: boolean): boolean;
}

let lib: FormatLib | undefined;

function formatLib(): FormatLib {
  if (lib === undefined) {
    const entry = require.resolve('@bufbuild/protovalidate');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    lib = require(path.join(path.dirname(entry), 'lib.js')) as FormatLib;
  }
  return lib;
}

export const isEmail = (s: string): boolean => formatLib().isEmail.call(s);
export const isHostname = (s: string): boolean => formatLib().isHostname.call(s);
export const isIp = (s: string, version?: number): boolean => formatLib().isIp.call(s, version);
export const isIpPrefix = (s: string, version: number | undefined, strict: boolean): boolean => formatLib().isIpPrefix.call(s, version, strict);
export const isUri = (s: string): boolean => formatLib().isUri.call(s);
export const isUriRef = (s: string): boolean => formatLib().isUriRef.call(s);
export const isHostAndPort = (s: string, portRequired: boolean): boolean => formatLib().isHostAndPort.call(s, portRequired);
