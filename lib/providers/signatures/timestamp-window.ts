import { diagnoseClockSkew, diagnosisFields } from "@/lib/providers/signatures/diagnose-signature";
import type { SigningSecret, VerifyResult } from "@/lib/providers/types";
import { because } from "@/lib/reasons/reason-codes";

/**
 * The last step of a timestamped signature scheme, once `matched` verified the MAC: accepts when the
 * signed `timestamp` (unix seconds, as sent) lies within `toleranceSeconds` of `now` on either side
 * (inclusive), else answers 401 `timestamp_outside_tolerance` with a clock-skew diagnosis naming the
 * secret by label. Rules: Stripe-Signature and Standard Webhooks reject a timestamp beyond the
 * tolerance (300 s by default) both ways, against replays and skewed clocks.
 */
export function withinTimestampWindow(matched: SigningSecret, timestamp: string, toleranceSeconds: number, now: Date): VerifyResult {
  const ageSeconds = Math.floor(now.getTime() / 1000) - Number(timestamp);
  if (Math.abs(ageSeconds) <= toleranceSeconds) return { ok: true, secretLabel: matched.label };
  return {
    ok: false,
    status: 401,
    ...because("timestamp_outside_tolerance", { age: Math.abs(ageSeconds), max: toleranceSeconds }),
    ...diagnosisFields(diagnoseClockSkew(matched.label, ageSeconds)),
  };
}
