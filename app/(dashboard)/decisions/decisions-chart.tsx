"use client";
import { useLocale, useTranslations } from "next-intl";
import { OUTCOME_COLOURS } from "@/app/_components/outcome-colours";

const COLOURS = OUTCOME_COLOURS;
const ORDER = Object.keys(COLOURS);

/**
 * Stacked bars of decisions per UTC hour by outcome, as plain SVG (no chart library). The bars are
 * decorative for screen readers; the summary and legend carry the numbers.
 */
export function DecisionsChart({ buckets }: { buckets: { start: string; counts: Record<string, number>; total: number }[] }) {
  const t = useTranslations("decisions");
  const outcomes = useTranslations("outcome");
  const locale = useLocale();
  const total = buckets.reduce((sum, bucket) => sum + bucket.total, 0);
  const max = Math.max(1, ...buckets.map((bucket) => bucket.total));
  const width = 720;
  const height = 160;
  const left = 36;
  const bottom = 22;
  const barWidth = (width - left - 8) / Math.max(1, buckets.length);
  const scale = (value: number) => (value / max) * (height - bottom - 10);
  const present = ORDER.filter((outcome) => buckets.some((bucket) => (bucket.counts[outcome] ?? 0) > 0));
  const hour = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", timeZone: "UTC", hourCycle: "h23" });

  return (
    <figure className="chart" data-testid="decisions-chart">
      <figcaption>
        <strong>{t("chart")}</strong> — {t("chartSummary", { total })}
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={`${t("chart")}: ${t("chartSummary", { total })}`}>
        <line x1={left} y1={height - bottom} x2={width - 4} y2={height - bottom} stroke="#4a5560" />
        <text x={left - 6} y={12} textAnchor="end" fontSize="11" fill="#4a5560">
          {max}
        </text>
        <text x={left - 6} y={height - bottom} textAnchor="end" fontSize="11" fill="#4a5560">
          0
        </text>
        {buckets.map((bucket, index) => {
          let y = height - bottom;
          const x = left + index * barWidth + 1;
          return (
            <g key={bucket.start}>
              <title>{`${hour.format(new Date(bucket.start))} UTC: ${bucket.total}`}</title>
              {ORDER.map((outcome) => {
                const count = bucket.counts[outcome] ?? 0;
                if (count === 0) return null;
                const h = scale(count);
                y -= h;
                return <rect key={outcome} x={x} y={y} width={Math.max(1, barWidth - 2)} height={h} fill={COLOURS[outcome]} />;
              })}
              {index % 3 === 0 ? (
                <text x={x + barWidth / 2} y={height - 6} textAnchor="middle" fontSize="10" fill="#4a5560">
                  {hour.format(new Date(bucket.start))}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      {present.length > 0 ? (
        <ul className="legend">
          {present.map((outcome) => (
            <li key={outcome}>
              <span className="swatch" style={{ background: COLOURS[outcome] }} aria-hidden="true" />
              {outcomes(outcome)}: {buckets.reduce((sum, bucket) => sum + (bucket.counts[outcome] ?? 0), 0)}
            </li>
          ))}
        </ul>
      ) : null}
    </figure>
  );
}
