/**
 * The one registry of services the call core serves. Whoever builds a
 * service's methods (the gateway's forms, `server.grpc()`'s forms) stores it
 * here; lookup accepts the registered method name, its camelCase and its
 * PascalCase spelling, and the descriptor's own name, so `getUser` and
 * `GetUser` reach the same handler.
 */
import type { RegisteredService, ResolvedMethod } from './resolved-method';

function flipFirst(name: string): string {
  const first = name.charAt(0);
  const flipped = first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase();
  return flipped + name.slice(1);
}

/** Services by name and methods by service, then method name (aliases included). */
export class ServiceRegistry {
  readonly #services = new Map<string, RegisteredService>();
  /** service → method name → method, aliases included. Two lookups: no key string is built and hashed per call. */
  readonly #methods = new Map<string, Map<string, ResolvedMethod>>();
  #version = 0;

  /** Bumped on every registration, so transports can rebuild derived tables lazily. */
  get version(): number {
    return this.#version;
  }

  services(): RegisteredService[] {
    return [...this.#services.values()];
  }

  service(name: string): RegisteredService | undefined {
    return this.#services.get(name);
  }

  /** True when `name` (the registered name or one of its aliases) is hosted here. */
  hosts(name: string): boolean {
    return this.#methods.has(name);
  }

  resolve(service: string, method: string): ResolvedMethod | undefined {
    return this.#methods.get(service)?.get(method);
  }

  /**
   * Stores `service`, replacing one of the same name, and makes it reachable
   * under `aliases` too (a descriptor's full type name).
   */
  add(service: RegisteredService, aliases: readonly string[] = []): RegisteredService {
    const previous = this.#services.get(service.name);
    if (previous !== undefined) {
      for (const [key, byName] of this.#methods) {
        for (const [name, m] of byName) if (m.service === service.name) byName.delete(name);
        if (byName.size === 0) this.#methods.delete(key);
      }
    }
    this.#services.set(service.name, service);
    this.#alias(service.name, service);
    for (const alias of aliases) if (alias !== service.name) this.#alias(alias, service);
    this.#version++;
    return service;
  }

  #alias(serviceName: string, service: RegisteredService): void {
    let byName = this.#methods.get(serviceName);
    if (byName === undefined) {
      byName = new Map<string, ResolvedMethod>();
      this.#methods.set(serviceName, byName);
    }
    for (const m of service.methods) {
      const names = new Set([m.method, flipFirst(m.method)]);
      if (m.descriptor !== undefined) names.add(m.descriptor.name);
      for (const n of names) {
        // An exact registration wins over a case alias of another method.
        if (n === m.method || !byName.has(n)) byName.set(n, m);
      }
    }
  }
}
