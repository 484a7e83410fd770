/**
 * Express's `trust proxy` setting (`app.set('trust proxy', value)`): which
 * peers may speak for the client through `X-Forwarded-For`, `-Proto` and
 * `-Host`. Off by default, so a client cannot spoof its address.
 */
import proxyaddr from 'proxy-addr';

/** Decides whether the hop at `index` (0 = the socket peer) with address `addr` is a trusted proxy. */
export type TrustFunction = (addr: string, index: number) => boolean;

/** The accepted setting values, as in Express. */
export type TrustProxySetting = boolean | number | string | string[] | TrustFunction;

/**
 * Compiles a setting: `true` trusts every hop, a number that many hops,
 * strings/lists are addresses, CIDR ranges or `loopback`, `linklocal`,
 * `uniquelocal` (comma-separated allowed), a function decides itself.
 */
export function compileTrust(setting: TrustProxySetting | undefined): TrustFunction | null {
  if (setting === undefined || setting === false) return null;
  if (setting === true) return () => true;
  if (typeof setting === 'number') {
    if (!Number.isInteger(setting) || setting < 0) throw new TypeError(`trust proxy: a hop count must be a non-negative integer, got ${setting}`);
    return (_addr, index) => index < setting;
  }
  if (typeof setting === 'function') return setting;
  const list = typeof setting === 'string' ? setting.split(',').map((s) => s.trim()).filter((s) => s !== '') : setting;
  return proxyaddr.compile(list);
}
