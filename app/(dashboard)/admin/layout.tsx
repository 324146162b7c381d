import { forbidden } from "next/navigation";
import type { ReactNode } from "react";
import { requireActor } from "@/lib/auth/session";
import { can } from "@/lib/auth/roles";

/**
 * The admin pages (users, audit) are for admins only: checked here, above admin/loading.tsx's Suspense
 * boundary, so a refusal answers 403 (app/(dashboard)/forbidden.tsx) before any of the page streams.
 * The pages check again themselves.
 */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const actor = await requireActor();
  if (!can(actor.role, "users.manage")) forbidden();
  return children;
}
