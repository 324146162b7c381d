import { OUTCOME_COLOURS } from "@/app/_components/outcome-colours";
import { HEALTH_OUTCOMES, type EndpointHealth } from "@/lib/endpoints/endpoint-health";

export { OUTCOME_COLOURS };

/**
 * Seven small stacked bars (decisions per 24 h slice, oldest first, by outcome) as inline SVG, no chart
 * library. The image's accessible name carries every figure (`label`); the bars only repeat it.
 */
export function EndpointChart({ slices, label, dayLabels }: { slices: EndpointHealth["slices"]; label: string; dayLabels: string[] }) {
  const width = 224;
  const height = 72;
  const bottom = 14;
  const barWidth = width / slices.length;
  const max = Math.max(1, ...slices.map((slice) => slice.total));
  const scale = (value: number) => (value / max) * (height - bottom - 4);
  return (
    <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={label} data-testid="endpoint-chart" className="spark">
      <line x1={0} y1={height - bottom} x2={width} y2={height - bottom} stroke="#c9d1d9" />
      {slices.map((slice, index) => {
        let y = height - bottom;
        const x = index * barWidth + 3;
        return (
          <g key={slice.start} aria-hidden="true">
            {HEALTH_OUTCOMES.map((outcome) => {
              const count = slice.counts[outcome];
              if (count === 0) return null;
              const h = Math.max(1, scale(count));
              y -= h;
              return <rect key={outcome} x={x} y={y} width={barWidth - 6} height={h} fill={OUTCOME_COLOURS[outcome]} />;
            })}
            <text x={x + (barWidth - 6) / 2} y={height - 3} textAnchor="middle" fontSize="10" fill="#4a5560">
              {dayLabels[index]}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
