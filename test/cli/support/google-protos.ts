/**
 * Google API protos from google-proto-files (a dependency) with their import
 * closure copied into one tree, so fw-gen can take the tree as its import
 * root: building all of google-proto-files is slow and fails (DESIGN.md).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './run-cli';

export const GOOGLE_PROTOS = path.join(REPO_ROOT, 'node_modules', 'google-proto-files');

/** Protos with heavy `google.api.http` use: sub-patterns, `**`, custom verbs, additional bindings, body fields. */
export const HTTP_HEAVY_PROTOS = [
  'google/longrunning/operations.proto',
  'google/pubsub/v1/pubsub.proto',
  'google/pubsub/v1/schema.proto',
  'google/firestore/v1/firestore.proto',
  'google/logging/v2/logging.proto',
  'google/logging/v2/logging_config.proto',
  'google/logging/v2/logging_metrics.proto',
  'google/monitoring/v3/metric_service.proto',
  'google/monitoring/v3/alert_service.proto',
  'google/monitoring/v3/group_service.proto',
  'google/monitoring/v3/uptime_service.proto',
  'google/cloud/kms/v1/service.proto',
  'google/cloud/kms/v1/autokey.proto',
  'google/cloud/kms/v1/ekm_service.proto',
];

const IMPORT = /^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;/gm;

/** Copies `protos` and everything they import (but google/protobuf, which fw-gen supplies) under `into`. */
export function copyWithImports(protos: readonly string[], into: string): void {
  const seen = new Set<string>();
  const pending = [...protos];
  while (pending.length > 0 && seen.size < 1000) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = fs.readFileSync(path.join(GOOGLE_PROTOS, file), 'utf8');
    for (const m of text.matchAll(IMPORT)) if (!(m[1] as string).startsWith('google/protobuf/')) pending.push(m[1] as string);
    fs.mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    fs.writeFileSync(path.join(into, file), text);
  }
}
