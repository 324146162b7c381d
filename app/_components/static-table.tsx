import type { ReactNode } from "react";

/** One column header: its label, and whether the column holds numbers (right-aligned). */
export interface StaticColumn {
  label: ReactNode;
  numeric?: boolean;
}

/**
 * A server-rendered table of a few dozen rows at most (timelines, ledgers, review queues, runs): the
 * header from `columns` (null entries are skipped, for role-dependent columns), the rows as children,
 * or `empty` when `rowCount` is 0 (boxed; `quietEmpty` for a plain muted line, for secondary sections). Paged, sortable lists use TanStack Table instead (orders, decisions).
 */
export function StaticTable({ testId, columns, rowCount, empty, quietEmpty = false, children }: { testId?: string; columns: (StaticColumn | null)[]; rowCount: number; empty: ReactNode; quietEmpty?: boolean; children: ReactNode }) {
  if (rowCount === 0) return <p className={quietEmpty ? "muted" : "empty"}>{empty}</p>;
  return (
    <div className="table-wrap">
      <table data-testid={testId}>
        <thead>
          <tr>
            {columns.map((column, index) =>
              column ? (
                <th key={index} scope="col" className={column.numeric ? "num" : undefined}>
                  {column.label}
                </th>
              ) : null,
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
