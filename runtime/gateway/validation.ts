/**
 * Request/response validation with ajv. Accepts the spec's schema shape
 * (`properties.x.required: true`) by rewriting it to JSON Schema's `required`
 * list, and plain JSON Schema (fw-gen's `inputSchema`) as is.
 */
import type Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import { catalogueError, type ServiceError } from './errors';
import type { ValidationSchema } from './types';
import type { Validator } from '../rpc/call-types';

/** One failed rule: where, and what was expected. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Throws a ServiceError (400 VALIDATION_ERROR, or 500 for outputs) when `value` breaks the schema. */
export type { Validator } from '../rpc/call-types';

let shared: Ajv2020 | undefined;

/** The one ajv instance, loaded with the first schema: services without validation never load ajv. */
function ajv(): Ajv2020 {
  if (shared === undefined) {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const Ajv = (require('ajv/dist/2020') as typeof import('ajv/dist/2020')).default;
    const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;
    /* eslint-enable @typescript-eslint/no-require-imports */
    shared = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false });
    addFormats(shared);
  }
  return shared;
}

/** Rewrites the spec shape (`required: true` on a property) into JSON Schema, recursively. */
export function normalizeSchema(schema: ValidationSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required: string[] = Array.isArray(schema.required) ? [...(schema.required as string[])] : [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'required') continue;
    if (key === 'properties' && value !== null && typeof value === 'object') {
      const props: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries(value as Record<string, ValidationSchema>)) {
        if (prop !== null && typeof prop === 'object') {
          if (prop.required === true) required.push(name);
          props[name] = normalizeSchema(prop);
        } else {
          props[name] = prop;
        }
      }
      out.properties = props;
    } else if (key === 'items' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out.items = normalizeSchema(value as ValidationSchema);
    } else {
      out[key] = value;
    }
  }
  if (required.length > 0) out.required = required;
  return out;
}

function issues(validate: ValidateFunction): ValidationIssue[] {
  return (validate.errors ?? []).map((e) => ({
    path: e.instancePath === '' && typeof e.params.missingProperty === 'string' ? `/${e.params.missingProperty}` : e.instancePath || '/',
    message: e.message ?? 'is invalid',
  }));
}

/**
 * Compiles a schema once into a validator.
 *
 * @example
 * const check = compileValidator({ type: 'object', properties: { id: { type: 'string', required: true } } }, 'input');
 * check({}); // throws ServiceError VALIDATION_ERROR 400 with details [{ path: '/id', ... }]
 */
export function compileValidator(schema: ValidationSchema, kind: 'input' | 'output'): Validator {
  const normalized = normalizeSchema(schema);
  delete normalized.$schema;
  const validate = ajv().compile(normalized);
  if (kind === 'input') {
    return (value) => {
      if (!validate(value)) throw catalogueError('VALIDATION_ERROR', 'Request validation failed', issues(validate));
    };
  }
  return (value) => {
    if (!validate(value)) throw catalogueError('OUTPUT_VALIDATION_ERROR', 'Response validation failed', issues(validate));
  };
}
