/**
 * Which validator checks generated messages: fw-gen's compiled validators by
 * default, protovalidate's interpreter with `validation: 'protovalidate'` on
 * the gateway, on one service, or on `server.grpc()`. A copy of the example
 * descriptor whose compiled validator of CreateUserRequest refuses
 * everything tells the two apart (the real ones agree with protovalidate;
 * compiled-differential.test.ts shows that).
 */
import { GrpcStatus } from 'fw/grpc';
import { ProtocolGateway, type CompiledValidator, type ServiceDescriptor } from 'fw';
import { createUserServiceClient, UserServiceDescriptor, type UserServiceHandlers } from '../../generated/user.fw';
import { HOST } from '../gateway/support/clients';
import { listen, newApp, stopAll } from '../grpc/fixtures/servers';

const refuseAll: CompiledValidator = (_message, prefix, out) => {
  out.push({ field: `${prefix}name`, rule: 'test.compiled', message: 'refused by the compiled validator' });
};

const descriptor = {
  ...UserServiceDescriptor,
  validators: { ...UserServiceDescriptor.validators, 'user.CreateUserRequest': refuseAll },
} as typeof UserServiceDescriptor & ServiceDescriptor;

const handlers = {
  async createUser(request: { name: string; email: string }) {
    return { id: '1', name: request.name, email: request.email, phone: '', roles: [] };
  },
} as unknown as UserServiceHandlers;

const VALID = { name: 'Ada', email: 'ada@example.com' };

async function postCreate(gateway: ProtocolGateway, body: unknown): Promise<{ status: number; body: { details?: { rule: string }[] } }> {
  const { port } = await gateway.listen(0, HOST);
  try {
    const res = await fetch(`http://${HOST}:${port}/api/UserService/createUser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { details?: { rule: string }[] } };
  } finally {
    await gateway.close();
  }
}

describe('validation engine', () => {
  afterAll(stopAll);

  it('uses the compiled validator by default', async () => {
    const gateway = new ProtocolGateway({});
    gateway.addService(descriptor, handlers);
    const reply = await postCreate(gateway, VALID);
    expect(reply.status).toBe(400);
    expect(reply.body.details?.map((d) => d.rule)).toEqual(['test.compiled']);
  });

  it("goes back to protovalidate with the gateway's validation: 'protovalidate'", async () => {
    const gateway = new ProtocolGateway({ validation: 'protovalidate' });
    gateway.addService(descriptor, handlers);
    expect((await postCreate(gateway, VALID)).status).toBe(200);
    const gateway2 = new ProtocolGateway({ validation: 'protovalidate' });
    gateway2.addService(descriptor, handlers);
    const refused = await postCreate(gateway2, { name: '', email: 'nope' });
    expect(refused.status).toBe(400);
    expect(refused.body.details?.map((d) => d.rule)).toEqual(['required', 'string.email']);
  });

  it('takes the per-service option over the gateway default', async () => {
    const gateway = new ProtocolGateway({ validation: 'protovalidate' });
    gateway.addService(descriptor, handlers, { validation: 'compiled' });
    expect((await postCreate(gateway, VALID)).status).toBe(400);
    const other = new ProtocolGateway({});
    other.addService(descriptor, handlers, { validation: 'protovalidate' });
    expect((await postCreate(other, VALID)).status).toBe(200);
  });

  it('applies to server.grpc() too', async () => {
    const compiled = createUserServiceClient({ address: await listen(newApp().addService(descriptor, handlers)), credentials: 'insecure' });
    await expect(compiled.createUser(VALID)).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    const interpreted = createUserServiceClient({ address: await listen(newApp().addService(descriptor, handlers, { validation: 'protovalidate' })), credentials: 'insecure' });
    await expect(interpreted.createUser(VALID)).resolves.toMatchObject({ name: 'Ada' });
    await expect(interpreted.createUser({ name: '', email: 'nope' })).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    compiled.close();
    interpreted.close();
  });
});
