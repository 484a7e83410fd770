/**
 * Starts gateways on loopback for one `describe` block and closes them all
 * after it: call it inside the block, use the returned `start`.
 */
import type { ProtocolGateway } from 'fw';
import { HOST } from './clients';

/** The addresses `listen` reports. */
export interface StartedGateway {
  port: number;
  udpPort: number;
}

/** Registers an `afterAll` that closes every gateway `start` started. */
export function startedGateways(): (gateway: ProtocolGateway) => Promise<StartedGateway> {
  const gateways: ProtocolGateway[] = [];
  afterAll(async () => {
    for (const g of gateways) await g.close();
  });
  return async (gateway) => {
    gateways.push(gateway);
    const address = await gateway.listen(0, HOST);
    return { port: address.port as number, udpPort: address.udpPort as number };
  };
}
