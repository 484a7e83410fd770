/**
 * `registerEtcdInstance`: how an instance announces itself to the etcd
 * provider, under a lease so the key vanishes when the instance dies. Kept
 * apart from the provider so importing discovery does not load etcd3.
 */
import type { Etcd3 } from 'etcd3';
import { checkInstance, type InstanceAddress } from './discovery-config';

/** Key prefix the etcd provider reads by default. */
export const DEFAULT_ETCD_PREFIX = '/fw/services/';

/** A registration made by `registerEtcdInstance`; `revoke()` removes it at once. */
export interface EtcdRegistration {
  key: string;
  revoke(): Promise<void>;
}

/**
 * Registers an instance under a lease that etcd keeps alive while this
 * process runs; when the process dies the key expires after `ttlSeconds`.
 *
 * @example
 * const etcd = new Etcd3({ hosts: 'http://127.0.0.1:2379' });
 * const reg = await registerEtcdInstance(etcd, 'UserService', { host: '10.0.0.5', port: 50051 });
 * // on shutdown:
 * await reg.revoke();
 */
export async function registerEtcdInstance(
  client: Etcd3,
  service: string,
  instance: InstanceAddress,
  options: { prefix?: string; ttlSeconds?: number } = {},
): Promise<EtcdRegistration> {
  const checked = checkInstance(instance, 'instance');
  const key = `${options.prefix ?? DEFAULT_ETCD_PREFIX}${service}/${checked.host}:${checked.port}`;
  const lease = client.lease(options.ttlSeconds ?? 10);
  await lease.put(key).value(JSON.stringify({ host: checked.host, port: checked.port, weight: checked.weight, healthPort: checked.healthPort }));
  return { key, revoke: () => lease.revoke() };
}
