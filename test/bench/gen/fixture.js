'use strict';
// Writes the benchmark's synthetic proto tree: FILES files, SERVICES_PER_FILE
// services each (50 × 4 = 200 services by default), every call kind, nested
// and repeated fields, google.api.http and buf.validate annotations.
const fs = require('node:fs');
const path = require('node:path');

function protoFile(i, servicesPerFile) {
  const lines = [
    'syntax = "proto3";',
    '',
    `package bench.p${i};`,
    '',
    'import "buf/validate/validate.proto";',
    'import "google/api/annotations.proto";',
    'import "google/protobuf/timestamp.proto";',
    '',
    `// Entity ${i}.`,
    'message Item {',
    '  string id = 1;',
    '  string name = 2 [(buf.validate.field).string.min_len = 1];',
    '  repeated string tags = 3;',
    '  map<string, int64> counters = 4;',
    '  google.protobuf.Timestamp created_at = 5;',
    '  message Part { string sku = 1; int32 quantity = 2; }',
    '  repeated Part parts = 6;',
    '  oneof owner { string user_id = 7; string team_id = 8; }',
    '}',
    'message GetRequest { string id = 1 [(buf.validate.field).required = true]; }',
    'message ListRequest { int32 limit = 1 [(buf.validate.field).int32 = {gte: 0, lte: 100}]; string cursor = 2; }',
    'message Summary { int32 count = 1; repeated Item items = 2; }',
    '',
  ];
  for (let s = 0; s < servicesPerFile; s++) {
    const base = `/p${i}/s${s}`;
    lines.push(
      `// Service ${s} of file ${i}.`,
      `service Service${s} {`,
      `  rpc Get(GetRequest) returns (Item) { option (google.api.http) = {get: "${base}/items/{id}"}; }`,
      `  rpc Create(Item) returns (Item) { option (google.api.http) = {post: "${base}/items" body: "*"}; }`,
      '  rpc List(ListRequest) returns (stream Item);',
      '  rpc Upload(stream Item) returns (Summary);',
      '  rpc Sync(stream Item) returns (stream Item);',
      '}',
      '',
    );
  }
  return lines.join('\n');
}

/** Writes `files` protos under `dir`; returns the directory. */
function writeFixture(dir, files = 50, servicesPerFile = 4) {
  fs.rmSync(dir, { recursive: true, force: true });
  for (let i = 0; i < files; i++) {
    const file = path.join(dir, `p${i}`, `entity${i}.proto`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, protoFile(i, servicesPerFile));
  }
  return dir;
}

module.exports = { writeFixture };
