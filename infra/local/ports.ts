import { createServer } from 'node:net';

/** A loopback port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** Whether the port can be bound on all interfaces: nothing listens on it, on loopback or elsewhere. */
export function isFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once('error', () => resolveFree(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolveFree(true)));
  });
}
