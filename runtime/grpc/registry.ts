/**
 * Process-wide index of registered services, so `createGrpcTestClient(name)`
 * finds the application a service was added to without a socket. The latest
 * registration of a name wins; both `user.UserService` and `UserService` find it.
 */
import type { MethodBinding, ServiceBinding } from './method-binding';
import type { CallPipeline } from './pipeline';

/** A service together with the middleware pipeline of the app that serves it. */
export interface HostedService {
  readonly service: ServiceBinding;
  readonly pipeline: CallPipeline;
  /** Looks up a method by PascalCase or camelCase name. */
  method(name: string): MethodBinding | undefined;
}

const hosted = new Map<string, HostedService>();

/** Records `entry` under its full and short names. */
export function registerHostedService(entry: HostedService): void {
  hosted.set(entry.service.name, entry);
  const short = entry.service.name.slice(entry.service.name.lastIndexOf('.') + 1);
  hosted.set(short, entry);
}

/** The latest registration of `name`, if any. */
export function findHostedService(name: string): HostedService | undefined {
  return hosted.get(name);
}

/** A HostedService over `service` and `pipeline`. */
export function hostService(service: ServiceBinding, pipeline: CallPipeline): HostedService {
  const byName = new Map<string, MethodBinding>();
  for (const method of service.methods) {
    byName.set(method.method, method);
    byName.set(method.method.charAt(0).toLowerCase() + method.method.slice(1), method);
  }
  return { service, pipeline, method: (name) => byName.get(name) };
}
