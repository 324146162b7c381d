import { db } from "@/lib/db/client";

/** `{ ok, database }`: whether the process can reach its database with a trivial query. Never throws. */
export async function checkHealth(): Promise<{ ok: boolean; database: "up" | "down" }> {
  try {
    await (await db()).order.findFirst({ select: { id: true } });
    return { ok: true, database: "up" };
  } catch {
    return { ok: false, database: "down" };
  }
}
