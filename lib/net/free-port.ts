import { createServer } from "node:net";

/**
 * Asks the OS for a free TCP port on 127.0.0.1 (listen on port 0, read the port, close). Other
 * processes run servers on this machine too: tests, benchmarks and throwaway clusters never use fixed
 * ports. Rejects when nothing can listen.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}
