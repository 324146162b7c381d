/** Colour per decision outcome for the dashboard's charts (Okabe-Ito: distinct for common colour-vision deficiencies). */
export const OUTCOME_COLOURS: Record<string, string> = {
  applied: "#009E73",
  accepted: "#56B4E9",
  duplicate: "#0072B2",
  ignored: "#999999",
  retry_scheduled: "#E69F00",
  dead_lettered: "#D55E00",
  conflict: "#CC79A7",
  rejected: "#000000",
};
