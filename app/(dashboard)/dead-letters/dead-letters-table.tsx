"use client";
import Link from "@/app/_components/organization-link";
import { useLocale, useTranslations } from "next-intl";
import { createColumnHelper, rowSelectionFeature, tableFeatures, useTable, type RowSelectionState, type Updater } from "@tanstack/react-table";
import { useActionState, useEffect, useMemo, useRef, useState } from "react";
import { StatusBadge } from "@/app/_components/badges";
import { DateTime } from "@/app/_components/money";
import { useReasons } from "@/app/_components/use-reasons";
import { formatAge } from "@/lib/format/format";
import type { ActionResult } from "@/lib/auth/run-action";
import type { DeadLetterRow } from "@/lib/dead-letters/list-dead-letters";
import { UNASSIGNED } from "@/lib/dead-letters/unassigned";
import { eventLookupHref } from "@/lib/events/event-links";
import { assignDeadLetterAction, resolveDeadLetterAction, retryDeadLettersAction } from "./actions";

/** A row as shown: `departed` once it left the open tab (resolved) after the page was loaded. */
type ShownRow = DeadLetterRow & { departed?: boolean };

const features = tableFeatures({ rowSelectionFeature });
const helper = createColumnHelper<typeof features, ShownRow>();

/** The open tab's order (lib/dead-letters/list-dead-letters.ts): newest first failure, then id, both descending. */
function compareRows(a: ShownRow, b: ShownRow): number {
  if (a.firstFailedAt !== b.firstFailedAt) return a.firstFailedAt < b.firstFailedAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * The rows to show: the server's, plus the rows shown before that have left the tab since (resolved by
 * a retry or a note), kept in their place and marked departed until the page is reloaded. So an action
 * never moves the other rows, and the next click lands on the row under the pointer.
 */
function useStableRows(rows: DeadLetterRow[], keep: boolean): ShownRow[] {
  const [source, setSource] = useState(rows);
  const [shown, setShown] = useState<ShownRow[]>(rows);
  if (source !== rows) {
    // Adjusting state to a new prop during render (react.dev "you might not need an effect").
    setSource(rows);
    const present = new Set(rows.map((row) => row.id));
    const departed = keep ? shown.filter((row) => !present.has(row.id)).map((row) => ({ ...row, departed: true })) : [];
    setShown([...rows, ...departed].sort(compareRows));
  }
  return source === rows ? shown : rows;
}

function Label({ id }: { id: string }) {
  const t = useTranslations("deadLetters");
  return <>{t(id)}</>;
}

const eventColumn = helper.accessor("eventId", {
  header: () => <Label id="event" />,
  cell: (info) => (
    <>
      <Link href={eventLookupHref({ eventId: info.getValue(), provider: info.row.original.provider, endpoint: info.row.original.endpoint })} className="mono" data-testid="event-link">
        {info.getValue()}
      </Link>
      <br />
      <span className="muted mono">{info.row.original.eventType}</span> <span className="muted">· {info.row.original.provider}</span>
    </>
  ),
});
const orderColumn = helper.accessor("orderId", {
  header: () => <Label id="order" />,
  cell: (info) => {
    const orderId = info.getValue();
    return orderId ? (
      <Link href={`/orders/${encodeURIComponent(orderId)}`} className="mono">
        {orderId}
      </Link>
    ) : (
      "—"
    );
  },
});
/** The category and the reason in the reader's locale (a row without a code shows its stored sentence). */
function ReasonCell({ row }: { row: DeadLetterRow }) {
  const reasons = useReasons();
  return (
    <span className="wrap" data-testid="reason" data-coded={reasons.coded(row)}>
      <span className="badge neutral" data-category={row.category}>
        {reasons.word("category", row.category)}
      </span>{" "}
      {reasons.describe(row)}
    </span>
  );
}

/** The next step of a category in the reader's locale, else the stored text; for a payment settled in the provider's dashboard, a link to it there. */
function NextAction({ row }: { row: DeadLetterRow }) {
  const reasons = useReasons();
  return (
    <>
      <span data-testid="next-action">{reasons.text("nextAction", row.category, row.nextAction)}</span>
      {row.reviewFirst && row.paymentLink && row.paymentKey ? (
        <>
          {" "}
          <PaymentLink row={row} />
        </>
      ) : null}
    </>
  );
}

/** The payment's page in its provider's dashboard (a new tab: the person comes back to resolve with a note). */
function PaymentLink({ row }: { row: DeadLetterRow }) {
  const t = useTranslations("deadLetters");
  if (!row.paymentLink || !row.paymentKey) return null;
  return (
    <a href={row.paymentLink.url} target="_blank" rel="noopener noreferrer" data-testid="payment-link">
      {t("openPayment", { payment: row.paymentKey, provider: row.paymentLink.providerName })}
    </a>
  );
}

/** A resolution written by the system in the reader's locale; a person's note as written. */
function Resolution({ row }: { row: DeadLetterRow }) {
  const reasons = useReasons();
  // A person's note (no code) is shown as written, marked so: it is not a reason of Acredita's.
  return (
    <span data-testid="resolution" data-note={row.resolutionCode === null ? "" : undefined}>
      {row.resolution === null ? null : reasons.describe({ reason: row.resolution, reasonCode: row.resolutionCode, reasonParams: row.resolutionParams })}
    </span>
  );
}

const reasonColumn = helper.accessor("reason", {
  header: () => <Label id="reason" />,
  cell: (info) => <ReasonCell row={info.row.original} />,
});
const attemptsColumn = helper.accessor("attempts", { header: () => <Label id="attempts" />, cell: (info) => <span data-testid="attempts">{info.getValue()}</span> });

function Age({ from, now }: { from: string; now: string }) {
  const locale = useLocale();
  return <>{formatAge((new Date(now).getTime() - new Date(from).getTime()) / 1000, locale)}</>;
}

/**
 * Whether a person's retry can help: "review first" when it meets the same check again (review-first
 * categories) or is never retried (a conflict), else "retryable" (a missing transition, an unknown
 * order, retries exhausted on a transient failure): the same rule as the Retry button's dialog.
 */
function Retryable({ row }: { row: DeadLetterRow }) {
  const t = useTranslations("deadLetters");
  const review = row.reviewFirst || row.category === "conflict";
  return (
    <span className={`badge ${review ? "warn" : "info"}`} data-testid="retry-badge">
      {review ? t("notRetryable") : t("retryable")}
    </span>
  );
}

function Owner({ owner }: { owner: string | null }) {
  const t = useTranslations("deadLetters");
  return owner ? <>{owner}</> : <span className="muted">{t("unassigned")}</span>;
}

const selectColumn = helper.display({
  id: "select",
  header: ({ table }) => <SelectAll checked={table.getIsAllPageRowsSelected()} onToggle={table.getToggleAllPageRowsSelectedHandler()} />,
  cell: ({ row }) => (row.original.departed ? null : <SelectRow eventId={row.original.eventId} checked={row.getIsSelected()} onToggle={row.getToggleSelectedHandler()} />),
});

function SelectAll({ checked, onToggle }: { checked: boolean; onToggle: (event: unknown) => void }) {
  const t = useTranslations("deadLetters");
  return <input type="checkbox" aria-label={t("selectAll")} checked={checked} onChange={onToggle} />;
}

function SelectRow({ eventId, checked, onToggle }: { eventId: string; checked: boolean; onToggle: (event: unknown) => void }) {
  const t = useTranslations("deadLetters");
  return <input type="checkbox" aria-label={t("selectRow", { event: eventId })} checked={checked} onChange={onToggle} />;
}

const openColumns = helper.columns([
  selectColumn,
  eventColumn,
  orderColumn,
  reasonColumn,
  attemptsColumn,
  helper.accessor("firstFailedAt", { header: () => <Label id="age" /> }),
  helper.accessor("nextAction", {
    header: () => <Label id="nextAction" />,
    cell: (info) => (
      <span className="wrap">
        <Retryable row={info.row.original} /> <NextAction row={info.row.original} />
      </span>
    ),
  }),
  helper.accessor("owner", { header: () => <Label id="owner" />, cell: (info) => <Owner owner={info.getValue()} /> }),
  helper.display({ id: "actions", header: () => <Label id="actions" /> }),
]);
const openReadOnlyColumns = openColumns.filter((column) => column.id !== "select" && column.id !== "actions");

/** Who resolved a dead letter, the system's own name translated. */
function ActorName({ actor }: { actor: string | null }) {
  const reasons = useReasons();
  return <>{actor ? reasons.actor(actor) : "—"}</>;
}

const resolvedColumns = helper.columns([
  eventColumn,
  orderColumn,
  reasonColumn,
  attemptsColumn,
  helper.accessor("status", { header: () => <Label id="resolution" />, cell: (info) => <><StatusBadge status={info.getValue()} /> <Resolution row={info.row.original} /></> }),
  helper.accessor("resolvedBy", { header: () => <Label id="resolvedBy" />, cell: (info) => <ActorName actor={info.getValue()} /> }),
  helper.accessor("resolvedAt", { header: () => <Label id="resolvedAt" />, cell: (info) => <DateTime value={info.getValue()} /> }),
]);

const EMPTY_SELECTION: RowSelectionState = {};

/**
 * The dead letters of one tab. With `canManage` (support, admin) each open row has retry, assign-to-me
 * and resolve-with-note, and selected rows can be retried together; without it there are no controls
 * at all (the actions re-check the role on the server anyway).
 */
export function DeadLettersTable({
  rows,
  tab,
  canManage,
  assignees,
  now,
  emptyText,
  viewer,
}: {
  rows: DeadLetterRow[];
  tab: "open" | "resolved";
  canManage: boolean;
  /** Who an open dead letter can be handed to (e-mails of support and admin users). */
  assignees: string[];
  now: string;
  emptyText: string;
  viewer: string;
}) {
  const t = useTranslations("deadLetters");
  const [selection, setSelection] = useState<RowSelectionState>(EMPTY_SELECTION);
  const [retryState, retryAction, retrying] = useActionState(retryDeadLettersAction, null);
  const [assignState, assignAction, assigning] = useActionState(assignDeadLetterAction, null);
  const [resolveState, resolveAction, resolving] = useActionState(resolveDeadLetterAction, null);
  const latest = useMemo(() => [retryState, assignState, resolveState].filter((state): state is ActionResult => state !== null).sort((a, b) => b.at - a.at)[0], [retryState, assignState, resolveState]);
  const busy = retrying || assigning || resolving;
  const managing = canManage && tab === "open";
  const shown = useStableRows(rows, managing);

  // Rows that were retried or resolved leave the tab: drop them from the selection.
  useEffect(() => setSelection(EMPTY_SELECTION), [retryState, resolveState]);

  const columns = tab === "resolved" ? resolvedColumns : canManage ? openColumns : openReadOnlyColumns;
  const table = useTable({
    features,
    columns,
    data: shown,
    getRowId: (row) => row.id,
    enableRowSelection: managing ? (row) => !row.original.departed : false,
    state: { rowSelection: selection },
    onRowSelectionChange: (updater: Updater<RowSelectionState>) => setSelection((current) => (typeof updater === "function" ? updater(current) : updater)),
  });
  const selectedIds = Object.keys(selection).filter((id) => selection[id] && rows.some((row) => row.id === id));
  const visible = shown.length > 0;

  return (
    <>
      {/* Above the table: room for a row action's answer held in advance (the rows stay under the pointer), and taller when a bulk retry answers more, every line in view, none behind a scrollbar. */}
      <div role="status" aria-live="polite" aria-label={t("resultsLabel")} data-testid="action-result" className={managing ? "action-results" : undefined}>
        {latest ? (
          <div className={`notice ${latest.tone}`}>
            {latest.messages.map((message, index) => (
              <p key={index}>{message}</p>
            ))}
          </div>
        ) : managing && visible ? (
          <p className="muted">{t("resultsEmpty")}</p>
        ) : null}
      </div>
      {!visible ? <p className="empty">{emptyText}</p> : null}
      {managing && visible ? (
        <form action={retryAction} className="bulk">
          {selectedIds.map((id) => (
            <input key={id} type="hidden" name="id" value={id} />
          ))}
          <button type="submit" disabled={selectedIds.length === 0 || busy} data-testid="retry-selected">
            {t("retrySelected", { count: selectedIds.length })}
          </button>
        </form>
      ) : null}
      <div className="table-wrap" hidden={!visible}>
        <table data-testid="dead-letters-table">
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => (
                  <th key={header.id} scope="col">
                    <table.FlexRender header={header} />
                  </th>
                ))}
              </tr>
            ))}
          </thead>
          <tbody>
            {table.getRowModel().rows.map((row) => (
              <tr
                key={row.id}
                data-dead-letter-id={row.id}
                data-event-id={row.original.eventId}
                data-state={row.original.departed ? "departed" : row.original.status}
                className={row.original.departed ? "departed" : undefined}
              >
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} data-column={cell.column.id}>
                    {cell.column.id === "firstFailedAt" ? (
                      <Age from={row.original.firstFailedAt} now={now} />
                    ) : cell.column.id === "actions" ? (
                      row.original.departed ? (
                        // The actions stay laid out, hidden and inert, under the badge: the table's column
                        // widths, and so every row's height, stay as they were, and a page scrolled to its
                        // end does not get shorter and scroll up under the pointer.
                        <div className="departed-actions">
                          <span className="badge ok">{t("departed")}</span>
                          <div className="departed-placeholder" inert aria-hidden="true">
                            <RowActions row={row.original} viewer={viewer} assignees={assignees} busy={busy} retryAction={retryAction} assignAction={assignAction} resolveAction={resolveAction} />
                          </div>
                        </div>
                      ) : (
                        <RowActions row={row.original} viewer={viewer} assignees={assignees} busy={busy} retryAction={retryAction} assignAction={assignAction} resolveAction={resolveAction} />
                      )
                    ) : (
                      <table.FlexRender cell={cell} />
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/**
 * Retry of a review-first dead letter: the button opens a dialog that says why a retry fails again,
 * offers the fitting action (open the order) and retries only on "Retry anyway". Cancel (or Escape)
 * sends nothing, so the attempt count stays as it is.
 */
function ReviewFirstRetry({ row, busy, retryAction }: { row: DeadLetterRow; busy: boolean; retryAction: (formData: FormData) => void }) {
  const t = useTranslations("deadLetters");
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = `retry-confirm-${row.id}`;
  return (
    <>
      <button type="button" disabled={busy} aria-haspopup="dialog" aria-label={`${t("retry")} ${row.eventId}`} onClick={() => dialog.current?.showModal()}>
        {t("retryReview")}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId} className="confirm" data-testid="retry-confirm">
        <h2 id={titleId}>{t("retryConfirm.title", { event: row.eventId })}</h2>
        <p>{t(`retryConfirm.why.${row.category}`)}</p>
        <p>{t("retryConfirm.body")}</p>
        <div className="row-actions">
          {row.paymentLink && row.paymentKey ? (
            <a href={row.paymentLink.url} target="_blank" rel="noopener noreferrer" className="button">
              {t("retryConfirm.openPayment", { payment: row.paymentKey, provider: row.paymentLink.providerName })}
            </a>
          ) : null}
          {row.orderId ? (
            <Link href={`/orders/${encodeURIComponent(row.orderId)}`} className="button">
              {t("retryConfirm.openOrder", { order: row.orderId })}
            </Link>
          ) : null}
          <button type="button" className="secondary" autoFocus onClick={() => dialog.current?.close()}>
            {t("retryConfirm.cancel")}
          </button>
          <form action={retryAction} onSubmit={() => dialog.current?.close()}>
            <input type="hidden" name="id" value={row.id} />
            <input type="hidden" name="confirm" value="review-first" />
            <button type="submit" className="danger" disabled={busy}>
              {t("retryConfirm.confirm")}
            </button>
          </form>
        </div>
      </dialog>
    </>
  );
}

function RowActions({
  row,
  viewer,
  assignees,
  busy,
  retryAction,
  assignAction,
  resolveAction,
}: {
  row: DeadLetterRow;
  /** The signed-in user: a row they own offers no "assign to me". */
  viewer: string;
  /** Colleagues the row can be handed to. */
  assignees: string[];
  busy: boolean;
  retryAction: (formData: FormData) => void;
  assignAction: (formData: FormData) => void;
  resolveAction: (formData: FormData) => void;
}) {
  const t = useTranslations("deadLetters");
  return (
    <div className="row-actions">
      {row.reviewFirst ? (
        <ReviewFirstRetry row={row} busy={busy} retryAction={retryAction} />
      ) : (
        <form action={retryAction}>
          <input type="hidden" name="id" value={row.id} />
          <button type="submit" disabled={busy} aria-label={`${t("retry")} ${row.eventId}`}>
            {t("retry")}
          </button>
        </form>
      )}
      {row.owner === viewer ? null : (
        <form action={assignAction}>
          <input type="hidden" name="id" value={row.id} />
          <button type="submit" className="secondary" disabled={busy} aria-label={`${t("assignToMe")}: ${row.eventId}`}>
            {t("assignToMe")}
          </button>
        </form>
      )}
      {row.owner === null ? null : (
        <form action={assignAction}>
          <input type="hidden" name="id" value={row.id} />
          <input type="hidden" name="to" value={UNASSIGNED} />
          <button type="submit" className="secondary" disabled={busy} aria-label={`${t("unassign")}: ${row.eventId}`}>
            {t("unassign")}
          </button>
        </form>
      )}
      <HandOver row={row} assignees={assignees.filter((email) => email !== row.owner && email !== viewer)} busy={busy} assignAction={assignAction} />
      <details>
        <summary>{t("resolveWithNote")}</summary>
        <form action={resolveAction}>
          <input type="hidden" name="id" value={row.id} />
          <label htmlFor={`note-${row.id}`}>{t("note")}</label>
          <textarea id={`note-${row.id}`} name="note" required minLength={3} maxLength={1000} rows={2} placeholder={t("notePlaceholder")} />
          <button type="submit" className="danger" disabled={busy}>
            {t("resolve")}
          </button>
        </form>
      </details>
    </div>
  );
}

/** Hands an open dead letter to a colleague (support or admin): a menu of their e-mails. */
function HandOver({ row, assignees, busy, assignAction }: { row: DeadLetterRow; assignees: string[]; busy: boolean; assignAction: (formData: FormData) => void }) {
  const t = useTranslations("deadLetters");
  if (assignees.length === 0) return null;
  return (
    <details>
      <summary>{t("handTo")}</summary>
      <form action={assignAction}>
        <input type="hidden" name="id" value={row.id} />
        <label htmlFor={`to-${row.id}`}>{t("colleague")}</label>
        <select id={`to-${row.id}`} name="to" required defaultValue="">
          <option value="" disabled>
            —
          </option>
          {assignees.map((email) => (
            <option key={email} value={email}>
              {email}
            </option>
          ))}
        </select>
        <button type="submit" className="secondary" disabled={busy}>
          {t("handOver")}
        </button>
      </form>
    </details>
  );
}
