"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";

/** Signs out through better-auth's endpoint (same origin, so its Origin check passes), then to /sign-in. */
export function SignOutButton({ label }: { label: string }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="secondary"
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        await fetch("/api/auth/sign-out", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).catch(() => undefined);
        router.replace("/sign-in");
        router.refresh();
      }}
    >
      {label}
    </button>
  );
}
