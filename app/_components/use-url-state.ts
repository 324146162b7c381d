"use client";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback } from "react";

/**
 * Table state lives in the URL (shareable, survives a reload): returns `navigate(changes)`, which
 * merges `changes` into the current search params (undefined or "" removes one) and pushes the URL;
 * the server component re-renders with the new params.
 */
export function useUrlState(): (changes: Record<string, string | number | undefined>) => void {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  return useCallback(
    (changes) => {
      const next = new URLSearchParams(searchParams.toString());
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined || value === "") next.delete(key);
        else next.set(key, String(value));
      }
      const query = next.toString();
      router.push(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [router, pathname, searchParams],
  );
}
