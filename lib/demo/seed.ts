import type { Db } from "@/lib/db/client";
import { uniqueViolationFields } from "@/lib/db/errors";
import { LAB_ORDERS } from "@/lib/demo/lab-orders";

/**
 * Seeds the demo data when the database has no orders yet: the lab's five orders. Returns the number
 * of orders created (0 when the database already had orders, so a restart never re-seeds). Two servers
 * starting at once on one database may both see no orders: the one whose insert hits the other's rows
 * (the batch is one statement, so all or nothing) seeds nothing and returns 0.
 */
export async function seedDemoData(db: Db): Promise<number> {
  if ((await db.order.count()) > 0) return 0;
  try {
    const { count } = await db.order.createMany({ data: LAB_ORDERS.map((order) => ({ ...order })) });
    return count;
  } catch (error) {
    if (uniqueViolationFields(error)) return 0;
    throw error;
  }
}
