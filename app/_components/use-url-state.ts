"use client";
import { useRouter, useSearchParams } from "next/navigation";
import { useCallback } from "react";

/**
 * Table state lives in the URL (shareable, survives a reload): returns `navigate(changes)`, which
 * merges `changes` into the current search params (undefined or "" removes one) and pushes the URL;
 * the server component re-renders with the new params.
 */
export function useUrlState(): (changes: Record<string, string | number | undefined>) => void {
  const router = useRouter();
  const searchParams = useSearchParams();
  return useCallback(
    (changes) => {
      const next = new URLSearchParams(searchParams.toString());
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined || value === "") next.delete(key);
        else next.set(key, String(value));
      }
      const query = next.toString();
      // The address as the browser shows it: an organization's page (`/o/acme/orders`) stays its own.
      const pathname = window.location.pathname;
      router.push(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [router, searchParams],
  );
}
