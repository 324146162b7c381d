"use client";
import Link from "@/app/_components/organization-link";
import { useTranslations } from "next-intl";
import { createColumnHelper, rowPaginationFeature, rowSortingFeature, tableFeatures, useTable, type PaginationState, type SortingState, type Updater } from "@tanstack/react-table";
import { useMemo } from "react";
import { StatusBadge } from "@/app/_components/badges";
import { DateTime, Money } from "@/app/_components/money";
import { useUrlState } from "@/app/_components/use-url-state";
import { PAGE_SIZES, type Page } from "@/lib/lists/page-sizes";
import type { OrderRow, OrderSort } from "@/lib/orders/list-orders";

// TanStack Table v9 with the server owning sorting and pagination (manualSorting/manualPagination):
// the table's state is read from the URL and every change is pushed back to the URL.
const features = tableFeatures({ rowSortingFeature, rowPaginationFeature });
const helper = createColumnHelper<typeof features, OrderRow>();

function Header({ id }: { id: "order" | "status" | "attention" | "amount" | "credited" | "difference" | "lastEvent" | "updated" }) {
  const t = useTranslations("orders");
  return <>{t(id)}</>;
}

/**
 * What a search found the order by ("Found by payment id"), under its id: the ids and e-mail that are not
 * in sight. Nothing without a search, or when the text is only a part of the order id shown above.
 */
function MatchedBy({ kinds: all }: { kinds: OrderRow["matchedBy"] }) {
  const t = useTranslations("orders");
  const kinds = all.filter((kind) => kind !== "order_id");
  if (kinds.length === 0) return null;
  return (
    <>
      <br />
      <span className="muted small" data-testid="matched-by" data-kinds={kinds.join(" ")}>
        {t("matchedBy", { kinds: kinds.map((kind) => t(`matchKind.${kind}`)).join(", ") })}
      </span>
    </>
  );
}

/** The attention mark: what is open on the order for a person (dead letters, extra charges), or nothing. */
function AttentionMark({ attention }: { attention: OrderRow["attention"] }) {
  const t = useTranslations("orders");
  const { openDeadLetters, openExtraCharges } = attention;
  if (openDeadLetters + openExtraCharges === 0) return null;
  return (
    <span className="badge warn wrap-badge" data-testid="attention" data-dead-letters={openDeadLetters} data-extra-charges={openExtraCharges}>
      <span aria-hidden="true">⚑ </span>
      {t("attentionMark", { deadLetters: openDeadLetters, extraCharges: openExtraCharges, both: openDeadLetters > 0 && openExtraCharges > 0 ? "yes" : "no" })}
    </span>
  );
}

const columns = helper.columns([
  helper.accessor("id", {
    header: () => <Header id="order" />,
    cell: (info) => (
      <>
        <Link href={`/orders/${encodeURIComponent(info.getValue())}`} className="mono">
          {info.getValue()}
        </Link>
        <MatchedBy kinds={info.row.original.matchedBy} />
      </>
    ),
  }),
  helper.accessor("status", { header: () => <Header id="status" />, cell: (info) => <StatusBadge status={info.getValue()} /> }),
  helper.accessor("attention", { header: () => <Header id="attention" />, enableSorting: false, cell: (info) => <AttentionMark attention={info.getValue()} /> }),
  helper.accessor("amount", { header: () => <Header id="amount" />, cell: (info) => <Money minor={info.getValue()} currency={info.row.original.currency} /> }),
  helper.accessor("credited", {
    header: () => <Header id="credited" />,
    enableSorting: false,
    cell: (info) => <Money minor={info.getValue()} currency={info.row.original.currency} />,
  }),
  helper.accessor("difference", {
    header: () => <Header id="difference" />,
    enableSorting: false,
    cell: (info) => (
      <span className={info.getValue() !== 0 ? "diff-bad" : undefined}>
        <Money minor={info.getValue()} currency={info.row.original.currency} signed />
      </span>
    ),
  }),
  helper.accessor("lastEventAt", { header: () => <Header id="lastEvent" />, cell: (info) => <DateTime value={info.getValue()} /> }),
  helper.accessor("updatedAt", { header: () => <Header id="updated" />, cell: (info) => <DateTime value={info.getValue()} /> }),
]);

const NUMERIC = new Set(["amount", "credited", "difference"]);

export function OrdersTable({ page, sort, dir }: { page: Page<OrderRow>; sort: OrderSort; dir: "asc" | "desc" }) {
  const t = useTranslations("orders");
  const common = useTranslations("common");
  const navigate = useUrlState();
  const sorting = useMemo<SortingState>(() => [{ id: sort, desc: dir === "desc" }], [sort, dir]);
  const pagination = useMemo<PaginationState>(() => ({ pageIndex: page.page - 1, pageSize: page.pageSize }), [page.page, page.pageSize]);

  const table = useTable({
    features,
    columns,
    data: page.data,
    getRowId: (row) => row.id,
    manualSorting: true,
    manualPagination: true,
    enableSortingRemoval: false,
    enableMultiSort: false,
    rowCount: page.count,
    state: { sorting, pagination },
    onSortingChange: (updater: Updater<SortingState>) => {
      const next = typeof updater === "function" ? updater(sorting) : updater;
      const first = next[0];
      if (first) navigate({ sort: first.id, dir: first.desc ? "desc" : "asc", page: undefined });
    },
    onPaginationChange: (updater: Updater<PaginationState>) => {
      const next = typeof updater === "function" ? updater(pagination) : updater;
      navigate({ page: next.pageIndex > 0 ? next.pageIndex + 1 : undefined, pageSize: next.pageSize });
    },
  });

  return (
    <>
      <div className="table-wrap">
        <table data-testid="orders-table">
          <caption>
            {common("results", { count: page.count })} · {common("utc")} {sort === "amount" ? <span data-testid="amount-by-currency">{t("amountByCurrency")} </span> : null}<span className="help">{t("differenceHelp")}</span>
          </caption>
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => {
                  const sorted = header.column.getIsSorted();
                  return (
                    <th
                      key={header.id}
                      scope="col"
                      className={NUMERIC.has(header.column.id) ? "num" : undefined}
                      aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                    >
                      {header.column.getCanSort() ? (
                        <button type="button" className="sort" onClick={header.column.getToggleSortingHandler()} data-column={header.column.id}>
                          <table.FlexRender header={header} />
                          <span aria-hidden="true">{sorted === "asc" ? " ▲" : sorted === "desc" ? " ▼" : ""}</span>
                        </button>
                      ) : (
                        <table.FlexRender header={header} />
                      )}
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody>
            {table.getRowModel().rows.map((row) => (
              <tr key={row.id} data-order-id={row.id} data-currency={row.original.currency} data-attention={row.original.attention.openDeadLetters + row.original.attention.openExtraCharges > 0 ? "yes" : "no"}>
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} className={NUMERIC.has(cell.column.id) ? "num" : undefined} data-column={cell.column.id}>
                    <table.FlexRender cell={cell} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label={common("pagination")}>
        <span data-testid="page-indicator">{common("page", { page: page.page, totalPages: page.totalPages })}</span>
        <span className="links">
          <button type="button" className="secondary" onClick={() => table.firstPage()} disabled={!table.getCanPreviousPage()}>
            {common("first")}
          </button>
          <button type="button" className="secondary" onClick={() => table.previousPage()} disabled={!table.getCanPreviousPage()}>
            {common("previous")}
          </button>
          <button type="button" className="secondary" onClick={() => table.nextPage()} disabled={!table.getCanNextPage()}>
            {common("next")}
          </button>
          <button type="button" className="secondary" onClick={() => table.lastPage()} disabled={!table.getCanNextPage()}>
            {common("last")}
          </button>
        </span>
        <label className="inline">
          {common("pageSize")}{" "}
          <select value={page.pageSize} onChange={(event) => table.setPageSize(Number(event.target.value))}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </nav>
    </>
  );
}
