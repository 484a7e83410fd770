/**
 * What the generated functions of one group refer to by name: the index of
 * each message type (`d3`, `e3`) and the constant tables of enums (numbers
 * to names for reading, names to numbers for writing), declared once at the
 * top of the group.
 */
import type { ReflectedEnum, ReflectedType } from './reflection';

export class CodecTables {
  readonly types: ReflectedType[] = [];
  readonly #typeIndex = new Map<ReflectedType, number>();
  readonly #enumNames = new Map<ReflectedEnum, string>();
  readonly #enumValues = new Map<ReflectedEnum, string>();
  readonly #declarations: string[] = [];

  /** The number of `type` in the group, adding it (to be compiled) when new. */
  typeIndex(type: ReflectedType): number {
    let index = this.#typeIndex.get(type);
    if (index === undefined) {
      index = this.types.length;
      this.types.push(type);
      this.#typeIndex.set(type, index);
    }
    return index;
  }

  /** Name of the table mapping `type`'s numbers to names (the first name of an aliased number). */
  enumNames(type: ReflectedEnum): string {
    let name = this.#enumNames.get(type);
    if (name === undefined) {
      name = `N${this.#enumNames.size}`;
      const named = Object.entries(type.values).filter(([key, id]) => type.valuesById[id] === key);
      // Small non-negative numbers index an array (holes read undefined); others a prototype-free object.
      const dense = named.every(([, id]) => Number.isInteger(id) && id >= 0 && id < 4096);
      const entries = named.map(([key, id]) => `${JSON.stringify(String(id))}: ${JSON.stringify(key)}`);
      this.#declarations.push(
        dense
          ? `const ${name} = []; ${named.map(([key, id]) => `${name}[${id}] = ${JSON.stringify(key)};`).join(' ')}`
          : `const ${name} = { __proto__: null, ${entries.join(', ')} };`,
      );
      this.#enumNames.set(type, name);
    }
    return name;
  }

  /** Name of the table mapping `type`'s names (aliases too) to numbers. */
  enumValues(type: ReflectedEnum): string {
    let name = this.#enumValues.get(type);
    if (name === undefined) {
      name = `V${this.#enumValues.size}`;
      const entries = Object.entries(type.values).map(([key, id]) => `${JSON.stringify(key)}: ${id}`);
      this.#declarations.push(`const ${name} = { __proto__: null, ${entries.join(', ')} };`);
      this.#enumValues.set(type, name);
    }
    return name;
  }

  /** A JSON-representable default as a literal. */
  literal(value: unknown): string {
    return JSON.stringify(value) ?? 'undefined';
  }

  /** The table declarations, for the top of the group. */
  declarations(): string {
    return this.#declarations.join('\n');
  }
}
