import { BENCH_API_TOKEN, benchFolder, createBenchDatabase } from "@/bench/bench-data";
import { startAcredita } from "@/bench/bench-processes";
import { customerEmail, generateScaleData, type ScaleData } from "@/bench/scale-data";
import { timeCalls, timeRequests, type TimedPath } from "@/bench/time-requests";
import { openSqlite } from "@/lib/db/client";
import { TEST_ROLE_USERS } from "@/lib/demo/demo-accounts";
import { seedDemoUsers } from "@/lib/demo/demo-users";
import { decisionQueryFromParams, listDecisionsPage } from "@/lib/decisions/list-decisions";
import { listOrdersPage, orderQueryFromParams } from "@/lib/orders/list-orders";
const DEFAULT_ORG = "org_default";

/** The dashboard-at-scale result: what was generated, and the response times measured on it. */
export interface DashboardMeasurement {
  data: ScaleData;
  /** Server response times over HTTP (production build, signed in), time to the whole streamed page. */
  http: TimedPath[];
  /** The pages' own lib/ queries, in this process (Prisma, same SQLite settings). */
  queries: Awaited<ReturnType<typeof timeCalls>>[];
}

/** The order the timings read: one in the middle of the generated range (ord_050000 of 100,000). */
function sampleOrderId(orders: number): string {
  return `ord_${String(Math.floor(orders / 2)).padStart(6, "0")}`;
}

/** Signs in as the demo support user over HTTP; returns the Cookie header for the session. */
async function signIn(baseUrl: string): Promise<string> {
  const support = TEST_ROLE_USERS.find((user) => user.role === "support")!;
  const response = await fetch(`${baseUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ email: support.email, password: support.password }),
  });
  if (response.status !== 200) throw new Error(`sign-in for the dashboard benchmark: HTTP ${response.status}`);
  return response.headers.getSetCookie().map((cookie) => cookie.split(";")[0]).join("; ");
}

/**
 * Dashboard at scale: generates `orders` orders and `orders * decisionsPerOrder` decision
 * rows, starts the production build on them, signs in, and times one request at a time: the orders page
 * (paid + ARS, sorted by last update, page 500 of 50), the unfiltered orders page 500, one order's page,
 * the decision log filtered by that order id and the unfiltered log; the orders page's search by each
 * kind (payment id, e-mail, part of an order id, event id), needs-attention, the API's search and the
 * orders CSV export of every order; then the same lib/ list functions in process.
 */
export async function measureDashboardAtScale(options: { orders: number; decisionsPerOrder: number; repeats: number }): Promise<DashboardMeasurement> {
  const folder = benchFolder("dashboard");
  const file = createBenchDatabase(folder);
  const data = generateScaleData(file, { orders: options.orders, decisionsPerOrder: options.decisionsPerOrder });
  const setup = await openSqlite(`file:${file}`, 5_000);
  await seedDemoUsers(setup, { mode: "demo", users: TEST_ROLE_USERS });
  await setup.$disconnect();

  const pageSize = 50;
  // Page 500 at 100,000 orders; a smaller (--quick) data set reads a page a quarter of the way in.
  const page = Math.min(500, Math.max(1, Math.floor(options.orders / 4 / pageSize)));
  const order = sampleOrderId(options.orders);
  const middle = Math.floor(options.orders / 2);
  const paths: [string, string][] = [
    [`/orders: paid + ARS, by last update, page ${page}`, `/orders?status=paid&currency=ARS&sort=updatedAt&dir=desc&page=${page}&pageSize=${pageSize}`],
    [`/orders: no filter, by last update, page ${page}`, `/orders?sort=updatedAt&dir=desc&page=${page}&pageSize=${pageSize}`],
    [`/orders/{id}: one order`, `/orders/${order}`],
    [`/decisions: filtered by order id`, `/decisions?orderId=${order}`],
    [`/decisions: no filter, page 1`, `/decisions`],
    [`GET /api/orders?limit=50&offset=${(page - 1) * pageSize}`, `/api/orders?limit=${pageSize}&offset=${(page - 1) * pageSize}`],
    // Search: each kind the orders page takes (the target: under 150 ms at 100,000 orders).
    [`/orders?q=: a payment id`, `/orders?q=pay_${middle}`],
    [`/orders?q=: a customer's e-mail (4 orders)`, `/orders?q=${encodeURIComponent(customerEmail(middle, options.orders).toUpperCase())}`],
    [`/orders?q=: a part of an order id`, `/orders?q=${order.slice(-5)}`],
    [`/orders?q=: an event id`, `/orders?q=evt_${middle}_a`],
    [`/orders?attention=1`, `/orders?attention=1`],
    [`GET /api/orders?q=<charge id>`, `/api/orders?q=ch_${middle}`],
  ];

  const server = await startAcredita(file, { INBOX_WORKER_IN_PROCESS: "false" });
  const http: TimedPath[] = [];
  try {
    const cookie = await signIn(server.url);
    for (const [label, path] of paths) {
      const headers: Record<string, string> = path.startsWith("/api/") ? { authorization: `Bearer ${BENCH_API_TOKEN}` } : { cookie };
      http.push(await timeRequests(server.url, label, path, headers, options.repeats));
    }
    // The whole export is seconds, not milliseconds: three timed runs after one to warm up.
    http.push(await timeRequests(server.url, `GET /api/exports/orders.csv (all ${options.orders} orders)`, "/api/exports/orders.csv", { authorization: `Bearer ${BENCH_API_TOKEN}` }, 3, 1));
  } finally {
    await server.stop();
  }

  const db = await openSqlite(`file:${file}`, 5_000);
  const queries: DashboardMeasurement["queries"] = [];
  try {
    const ordersQuery = orderQueryFromParams({ status: "paid", currency: "ARS", sort: "updatedAt", dir: "desc", page: String(page), pageSize: String(pageSize) });
    queries.push(await timeCalls(`listOrdersPage: paid + ARS, page ${page}`, () => listOrdersPage(db, DEFAULT_ORG, ordersQuery), options.repeats));
    queries.push(await timeCalls(`listOrdersPage: no filter, page ${page}`, () => listOrdersPage(db, DEFAULT_ORG, orderQueryFromParams({ page: String(page), pageSize: String(pageSize) })), options.repeats));
    queries.push(await timeCalls("listOrdersPage: search a payment id", () => listOrdersPage(db, DEFAULT_ORG, orderQueryFromParams({ q: `pay_${middle}` }), { emails: true }), options.repeats));
    queries.push(await timeCalls("listOrdersPage: search an e-mail", () => listOrdersPage(db, DEFAULT_ORG, orderQueryFromParams({ q: customerEmail(middle, options.orders) }), { emails: true }), options.repeats));
    queries.push(await timeCalls("listOrdersPage: search a part of an order id", () => listOrdersPage(db, DEFAULT_ORG, orderQueryFromParams({ q: order.slice(-5) }), { emails: true }), options.repeats));
    queries.push(await timeCalls("listDecisionsPage: by order id", () => listDecisionsPage(db, DEFAULT_ORG, decisionQueryFromParams({ orderId: order })), options.repeats));
    queries.push(await timeCalls("listDecisionsPage: no filter, page 1", () => listDecisionsPage(db, DEFAULT_ORG, decisionQueryFromParams({})), options.repeats));
  } finally {
    await db.$disconnect();
  }
  return { data, http, queries };
}
