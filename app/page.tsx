import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { ORGANIZATION_PATH_HEADER, organizationBase } from "@/lib/http/organization-path";

// The dashboard starts at the orders list (of the organization the address names: `/o/acme` opens
// `/o/acme/orders`); signed-out visitors are sent on to /sign-in from there.
export default async function Home() {
  const slug = (await headers()).get(ORGANIZATION_PATH_HEADER);
  redirect(`${slug ? organizationBase(slug) : ""}/orders`);
}
