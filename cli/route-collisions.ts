/**
 * The generation-time check that no two `google.api.http` bindings of one
 * fw-gen run match the same requests.
 */
import { InputError } from './cli-error';
import type { FileModel } from './model';

/**
 * Refuses two `google.api.http` bindings that match the same requests (same
 * HTTP method, same template shape once variable names are dropped): at run
 * time one would silently shadow the other.
 */
export function checkRouteCollisions(models: readonly FileModel[]): void {
  const seen = new Map<string, string>();
  const clashes: string[] = [];
  for (const model of models) {
    for (const service of model.services) {
      for (const method of service.methods) {
        for (const route of method.http) {
          const rpc = `${service.typeName}.${method.name} (${route.method} ${route.path})`;
          const other = seen.get(route.shape);
          if (other === undefined) seen.set(route.shape, rpc);
          else clashes.push(`  ${other}\n  ${rpc}`);
        }
      }
    }
  }
  if (clashes.length > 0) throw new InputError(`fw-gen: google.api.http bindings collide (they match the same requests):\n${clashes.join('\n\n')}`);
}
