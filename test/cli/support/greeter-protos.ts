/** Small proto sources the merge and check tests edit step by step. */

/** Greeter v1: one unary RPC and one server stream. */
export const GREETER_V1 = `syntax = "proto3";
package greet;

message HelloRequest { string name = 1; }
message HelloReply { string text = 1; }
message HelloRequestV2 { string name = 1; string locale = 2; }

service Greeter {
  // Says hello.
  rpc SayHello(HelloRequest) returns (HelloReply);
  rpc SayMany(HelloRequest) returns (stream HelloReply);
}
`;

/** v1 plus a client-streaming RPC. */
export const GREETER_ADDED = GREETER_V1.replace(
  '  rpc SayMany(HelloRequest) returns (stream HelloReply);\n',
  '  rpc SayMany(HelloRequest) returns (stream HelloReply);\n  // Greets everyone sent.\n  rpc SayToAll(stream HelloRequest) returns (HelloReply);\n',
);

/** v1 with SayHello taking HelloRequestV2. */
export const GREETER_RETYPED = GREETER_V1.replace('rpc SayHello(HelloRequest)', 'rpc SayHello(HelloRequestV2)');

/** v1 without SayMany. */
export const GREETER_REMOVED = GREETER_V1.replace('  rpc SayMany(HelloRequest) returns (stream HelloReply);\n', '');

/** v1 with SayHello turned into a server stream. */
export const GREETER_STREAMING = GREETER_V1.replace('returns (HelloReply);', 'returns (stream HelloReply);');
