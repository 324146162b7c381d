import Link from "next/link";
import { getLocale, getTranslations } from "next-intl/server";
import { actingOrganizationId, actorCan } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { formatAge, formatCount } from "@/lib/format/format";
import { healthSummary } from "@/lib/health/health-summary";

/**
 * The health strip on every dashboard page: pending events (and the oldest's age), open dead letters,
 * failed attempts in the last hour, uncertain outbox rows, and the last check of the books (linked to
 * the Books page for those who may read it).
 */
export async function HealthStrip() {
  const [health, locale, t, canReadBooks] = await Promise.all([healthSummary(await db(), await actingOrganizationId()), getLocale(), getTranslations("health"), actorCan("metrics.read")]);
  const books = health.books;
  const booksText = !books
    ? t("booksNever")
    : books.ordersDiffering > 0
      ? t("booksDiffer", { differing: formatCount(books.ordersDiffering, locale), orders: formatCount(books.ordersChecked, locale) })
      : t("booksAgree", { agreeing: formatCount(books.ordersAgreeing, locale), orders: formatCount(books.ordersChecked, locale) });
  return (
    <section className="health" aria-label={t("label")} data-testid="health-strip">
      <dl>
        <div className={health.pendingEvents > 0 ? "alert" : undefined}>
          <dt>{t("pending")}</dt>
          <dd data-testid="health-pending">
            {formatCount(health.pendingEvents, locale)}
            {health.oldestPendingAgeSeconds !== null ? ` (${t("oldest", { age: formatAge(health.oldestPendingAgeSeconds, locale) })})` : ""}
          </dd>
        </div>
        <div className={health.openDeadLetters > 0 ? "alert" : undefined}>
          <dt>{t("deadLetters")}</dt>
          <dd data-testid="health-dead-letters">{formatCount(health.openDeadLetters, locale)}</dd>
        </div>
        <div className={health.failedAttemptsLastHour > 0 ? "alert" : undefined}>
          <dt>{t("failedAttempts")}</dt>
          <dd data-testid="health-failed-attempts">{formatCount(health.failedAttemptsLastHour, locale)}</dd>
        </div>
        <div className={health.uncertainOutbox > 0 ? "alert" : undefined}>
          <dt>{t("uncertain")}</dt>
          <dd data-testid="health-uncertain">{formatCount(health.uncertainOutbox, locale)}</dd>
        </div>
        <div className={books && books.ordersDiffering > 0 ? "alert" : undefined}>
          <dt>{t("books")}</dt>
          <dd data-testid="health-books" data-differing={books?.ordersDiffering ?? ""}>
            {canReadBooks ? <Link href="/books">{booksText}</Link> : booksText}
          </dd>
        </div>
      </dl>
    </section>
  );
}

export function HealthStripSkeleton() {
  return <section className="health" aria-busy="true" />;
}
