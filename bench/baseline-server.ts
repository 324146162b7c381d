// The two yardsticks Acredita's ingest is measured against, each a bare node:http server on
// better-sqlite3 with the product's durability (WAL, synchronous=FULL), run as its own process:
//   limit: the irreducible work of a safe receiver: read the body, HMAC-verify the lab signature (one
//          secret, constant time), take the event id, ONE insert into a UNIQUE key, commit. Nothing else.
//   naive: the seed article's naive receiver: verify, then apply (ledger entry + order update) with no
//          dedupe at all. It is not safe (a duplicate storm over-credits): it shows what safety costs.
// Usage: node --import tsx bench/baseline-server.ts <limit|naive> <sqlite file> <port> <secret>
import { createServer } from "node:http";
import Database from "better-sqlite3";
import { constantTimeEqual, decodeHex, hmacSha256 } from "@/lib/providers/signatures/hmac";

const [kind, file, portText, secret] = process.argv.slice(2);
if ((kind !== "limit" && kind !== "naive") || !file || !portText || !secret) {
  console.error("usage: baseline-server.ts <limit|naive> <sqlite file> <port> <secret>");
  process.exit(2);
}

const database = new Database(file, { timeout: 5_000 });
database.pragma("journal_mode = WAL");
database.pragma("synchronous = FULL");
database.exec(`
  CREATE TABLE IF NOT EXISTS BenchEvent (eventId TEXT NOT NULL PRIMARY KEY, receivedAt INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS BenchLedger (id INTEGER PRIMARY KEY, orderId TEXT NOT NULL, amount INTEGER NOT NULL);
`);
const insertEvent = database.prepare("INSERT INTO BenchEvent (eventId, receivedAt) VALUES (?, ?)");
const insertLedger = database.prepare("INSERT INTO BenchLedger (orderId, amount) VALUES (?, ?)");
const markPaid = database.prepare(`UPDATE "Order" SET status = 'paid', updatedAt = ? WHERE id = ?`);
const applyNaively = database.transaction((orderId: string, amount: number, at: number) => {
  insertLedger.run(orderId, amount);
  markPaid.run(at, orderId);
});

/** Lab-Signature `t=<s>,v1=<hex>`: the one v1 must match HMAC-SHA256(secret, "<t>." + body). */
function verified(header: string | undefined, body: Buffer): boolean {
  const match = header ? /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header) : null;
  if (!match) return false;
  const given = decodeHex(match[2]);
  return given !== undefined && constantTimeEqual(hmacSha256(secret, `${match[1]}.`, body), given) && Math.abs(Date.now() / 1000 - Number(match[1])) <= 300;
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const body = Buffer.concat(chunks);
    const answer = (status: number, outcome: string) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify({ outcome }));
    };
    if (!verified(request.headers["lab-signature"] as string | undefined, body)) return answer(401, "rejected");
    let event: { id: string; data: { order_id: string; amount: number } };
    try {
      event = JSON.parse(body.toString("utf8"));
    } catch {
      return answer(400, "rejected");
    }
    try {
      if (kind === "limit") {
        insertEvent.run(event.id, Date.now());
        answer(200, "applied");
      } else {
        applyNaively(event.data.order_id, event.data.amount, Date.now());
        answer(200, "applied");
      }
    } catch (error) {
      if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") return answer(200, "duplicate");
      answer(503, "rejected");
    }
  });
});
server.keepAliveTimeout = 30_000;
server.listen(Number(portText), "127.0.0.1", () => console.log(`${kind} listening on ${portText}`));
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => server.close(() => (database.close(), process.exit(0))));
