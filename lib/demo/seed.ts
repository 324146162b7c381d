import type { Db } from "@/lib/db/client";
import { LAB_ORDERS } from "@/lib/demo/lab-orders";

/**
 * Seeds the demo data when the database has no orders yet: the lab's five orders. Returns the number
 * of orders created (0 when the database already had orders, so a restart never re-seeds).
 */
export async function seedDemoData(db: Db): Promise<number> {
  if ((await db.order.count()) > 0) return 0;
  const { count } = await db.order.createMany({ data: LAB_ORDERS.map((order) => ({ ...order })) });
  return count;
}
