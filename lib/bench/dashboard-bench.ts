import { BENCH_API_TOKEN, benchFolder, createBenchDatabase } from "@/lib/bench/bench-data";
import { startAcredita } from "@/lib/bench/bench-processes";
import { generateScaleData, type ScaleData } from "@/lib/bench/scale-data";
import { timeCalls, timeRequests, type TimedPath } from "@/lib/bench/time-requests";
import { openSqlite } from "@/lib/db/client";
import { listOrders } from "@/lib/orders/orders";

/** The dashboard-at-scale result: what was generated, and the response times measured on it. */
export interface DashboardMeasurement {
  data: ScaleData;
  /** Server response times over HTTP (production build). */
  http: TimedPath[];
  /** The same reads as lib/ calls in this process (Prisma, same SQLite settings). */
  queries: Awaited<ReturnType<typeof timeCalls>>[];
}

/** The order the timings read: one in the middle of the generated range (ord_050000 of 100,000). */
function sampleOrderId(orders: number): string {
  return `ord_${String(Math.floor(orders / 2)).padStart(6, "0")}`;
}

/**
 * Dashboard at scale (issue 7): generates `orders` orders and `orders * decisionsPerOrder` decision
 * rows, starts the production build on them and times, one request at a time: the orders list at page
 * 500 (50 per page), one order, and the decision log of one order; and the equivalent lib/ queries in
 * process (orders filtered by status and currency, sorted by last update, page 500; decisions of one
 * order, newest first).
 */
export async function measureDashboardAtScale(options: { orders: number; decisionsPerOrder: number; repeats: number }): Promise<DashboardMeasurement> {
  const folder = benchFolder("dashboard");
  const file = createBenchDatabase(folder);
  const data = generateScaleData(file, { orders: options.orders, decisionsPerOrder: options.decisionsPerOrder });
  const pageSize = 50;
  // Page 500 at 100,000 orders; a smaller (--quick) data set reads its middle page instead.
  const pageOffset = Math.min(499 * pageSize, Math.floor(options.orders / 4 / pageSize) * pageSize);
  const sampleOrder = sampleOrderId(options.orders);
  const page = pageOffset / pageSize + 1;

  const server = await startAcredita(file);
  const http: TimedPath[] = [];
  try {
    const auth = { authorization: `Bearer ${BENCH_API_TOKEN}` };
    http.push(await timeRequests(server.url, `GET /api/orders page ${page} (50 per page)`, `/api/orders?limit=${pageSize}&offset=${pageOffset}`, auth, options.repeats));
    http.push(await timeRequests(server.url, "GET /api/orders/{id}", `/api/orders/${sampleOrder}`, auth, options.repeats));
  } finally {
    await server.stop();
  }

  const db = await openSqlite(`file:${file}`, 5_000);
  const queries: DashboardMeasurement["queries"] = [];
  try {
    queries.push(await timeCalls(`listOrders page ${page} (lib/orders)`, () => listOrders(db, { limit: pageSize, offset: pageOffset }), options.repeats));
    queries.push(
      await timeCalls(
        `orders: paid + ARS, by last update, page ${page}, with count`,
        () =>
          Promise.all([
            db.order.findMany({ where: { status: "paid", currency: "ARS" }, orderBy: [{ updatedAt: "desc" }, { id: "asc" }], skip: pageOffset, take: pageSize }),
            db.order.count({ where: { status: "paid", currency: "ARS" } }),
          ]),
        options.repeats,
      ),
    );
    queries.push(
      await timeCalls(
        "decision log of one order, newest first, with count",
        () => Promise.all([db.decision.findMany({ where: { orderId: sampleOrder }, orderBy: { at: "desc" }, take: pageSize }), db.decision.count({ where: { orderId: sampleOrder } })]),
        options.repeats,
      ),
    );
  } finally {
    await db.$disconnect();
  }
  return { data, http, queries };
}
