import { createGrpcClient } from 'fw/grpc-client';
import { type ProtoDefinition } from 'fw/grpc';
import { loadUserProto, protoUserService } from '../grpc/fixtures/proto-user-service';
import { collect, fromArray, listen, newApp, stopAll } from '../grpc/fixtures/servers';
it('dbg', async () => {
  const proto = loadUserProto();
  const app = newApp().addService(protoUserService(proto));
  app.onUnexpectedError((e) => console.log('UNEXPECTED', e));
  const address = await listen(app);
  const client = createGrpcClient<any>({ address, credentials: 'insecure', service: (proto.user as ProtoDefinition).UserService as ProtoDefinition });
  try { await collect(client.chatWithUsers(fromArray([{ userId: 'u', message: 'fail' }]))); } catch (e) { console.log('ERR', e); }
  client.close(); await stopAll();
});
