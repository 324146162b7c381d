import { notFound } from "next/navigation";
import { requireActor } from "@/lib/auth/session";

export const dynamic = "force-dynamic";

// Any path no dashboard page serves: 404 inside the dashboard's frame (app/(dashboard)/not-found.tsx),
// after sign-in like every dashboard page, so a signed-out visitor learns nothing about the routes.
export default async function MissingPage(): Promise<never> {
  await requireActor();
  notFound();
}
