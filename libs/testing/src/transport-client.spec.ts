import { createHash } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { HarnessState } from '@hub/domain';
import { TransportTestClient } from './transport-client';

/**
 * A server that answers the upgrade and sends the first frame in one write, so the client reads
 * both at once: what a real hub does when a resuming client's first delta is ready at once.
 */
function upgradeAndSendInOneWrite(frame: object, sockets: Set<Socket>): Promise<Server> {
  const server = createServer((socket) => {
    sockets.add(socket);
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const key = /sec-websocket-key: *(.+)\r\n/i.exec(head)?.[1]?.trim() ?? '';
      const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      const payload = Buffer.from(JSON.stringify(frame));
      const wsFrame = Buffer.concat([Buffer.from([0x81, payload.length]), payload]); // FIN + text, < 126 bytes
      const response = `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`;
      socket.write(Buffer.concat([Buffer.from(response, 'latin1'), wsFrame]));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('TransportTestClient resuming', () => {
  const kept: HarnessState = { status: 'running', messages: [{ id: 'm1', role: 'assistant', content: 'Hel', status: 'streaming' }] } as HarnessState;
  const delta = { type: 'delta', cursor: 8, operations: [{ type: 'append-text', path: ['messages', '0', 'content'], value: 'lo' }] };
  let server: Server;

  beforeAll(async () => {
    server = await upgradeAndSendInOneWrite(delta, sockets);
  });
  const sockets = new Set<Socket>();
  afterAll(async () => {
    sockets.forEach((s) => s.destroy());
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('applies a delta that came in the same read as the upgrade to the state it resumed with', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const c = await TransportTestClient.connect(url, null, { session: 's', after: 7 }, {}, { state: kept, cursor: 7 });
    await c.waitFor('the delta', (x) => x.cursor === 8, 5_000);
    expect(c.state?.messages[0]?.content).toBe('Hello');
    c.ws.terminate();
  });
});
