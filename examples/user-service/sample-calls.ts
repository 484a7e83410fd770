/**
 * One working call per protocol against the running example, printed by
 * `npm start` so a reader can try each at once: curl (HTTP), grpcurl (gRPC,
 * through server reflection), and Node one-liners for WebSocket, TCP frames
 * and UDP frames (docs/protocols.md). Node 22+ has a global WebSocket; on
 * Node 20 the line falls back to the `ws` package this repository installs.
 * test/gateway/example-gateway.test.ts runs every line.
 */

export interface SampleCall {
  protocol: 'HTTP' | 'gRPC' | 'WebSocket' | 'TCP' | 'UDP';
  /** A shell command (POSIX sh quoting). */
  command: string;
}

/** `value` as a JS literal with single-quoted strings, so it fits in a double-quoted shell word (values hold no quotes). */
function jsLiteral(value: object): string {
  return JSON.stringify(value).replace(/"([A-Za-z_]\w*)":/g, '$1:').replace(/"/g, "'");
}

/** Node code that sends one frame (version 1, type 1 = request) carrying `request` and prints the reply frame's type and payload. */
function frameSender(transport: 'tcp' | 'udp', host: string, port: number, request: object): string {
  const frame = `const b=Buffer.from(JSON.stringify(${jsLiteral(request)})),f=Buffer.concat([Buffer.from([1,1,0,0,0,0]),b]);f.writeUInt32BE(b.length,2);`;
  const print = `console.log('frame type',r[1],String(r.subarray(6)))`;
  return transport === 'tcp'
    ? `${frame}const s=require('net').connect(${port},'${host}',()=>s.write(f));s.once('data',(r)=>{${print};s.destroy()})`
    : `${frame}const u=require('dgram').createSocket('udp4');u.once('message',(r)=>{${print};u.close()});u.send(f,${port},'${host}')`;
}

/** The commands for a service listening on `host:port` (UDP on the same port number). */
export function sampleCalls(host: string, port: number): SampleCall[] {
  const ws = [
    `const ws=new (globalThis.WebSocket??require('ws'))('ws://${host}:${port}/ws');`,
    `ws.onopen=()=>ws.send(JSON.stringify({id:1,service:'UserService',method:'createUser',data:{name:'Lin',email:'lin@example.com'}}));`,
    `ws.onmessage=(m)=>{console.log(String(m.data));ws.close()}`,
  ].join('');
  return [
    { protocol: 'HTTP', command: `curl -s -X POST http://${host}:${port}/users -H 'content-type: application/json' -d '{"name":"Ada","email":"ada@example.com"}'` },
    { protocol: 'gRPC', command: `grpcurl -plaintext -d '{"name":"Grace","email":"grace@example.com"}' ${host}:${port} user.UserService/CreateUser` },
    { protocol: 'WebSocket', command: `node -e "${ws}"` },
    { protocol: 'TCP', command: `node -e "${frameSender('tcp', host, port, { id: 1, service: 'UserService', method: 'createUser', data: { name: 'Tom', email: 'tom@example.com' } })}"` },
    { protocol: 'UDP', command: `node -e "${frameSender('udp', host, port, { id: 1, service: 'UserService', method: 'createUser', data: { name: 'Uma', email: 'uma@example.com' } })}"` },
  ];
}
