"use client";
// The dashboard's links carry the organization of the page they are on: a page of organization `acme`
// (`/o/acme/...`) links to `/o/acme/orders`, the default organization's pages to `/orders`. Pages and
// their parts write hrefs without a prefix; this adds it (lib/http/organization-path.ts).
import Link from "next/link";
import { createContext, useContext, type ComponentProps, type ReactNode } from "react";
import { apiPathIn, withOrganizationBase } from "@/lib/http/organization-path";

const OrganizationBase = createContext("");

/** Gives the parts below it the address prefix of the organization the page shows ("" or `/o/<slug>`). */
export function OrganizationBaseProvider({ base, children }: { base: string; children: ReactNode }) {
  return <OrganizationBase.Provider value={base}>{children}</OrganizationBase.Provider>;
}

/** The address prefix of the organization the page shows ("" for the default organization). */
export function useOrganizationBase(): string {
  return useContext(OrganizationBase);
}

/** A page's own API address in its organization (`/o/<slug>/api/...`): for a poll or an upload the page makes. */
export function useOrganizationApiPath(): (href: string) => string {
  const base = useOrganizationBase();
  return (href) => apiPathIn(base, href);
}

/** next/link with the organization's prefix on a dashboard path (anything else is left as given). */
export default function OrganizationLink({ href, ...props }: ComponentProps<typeof Link>) {
  const base = useOrganizationBase();
  return <Link href={typeof href === "string" ? withOrganizationBase(base, href) : href} {...props} />;
}
