import { headers } from "next/headers";
import Link, { OrganizationBaseProvider } from "@/app/_components/organization-link";
import { OrganizationSwitcher } from "@/app/_components/organization-switcher";
import { Suspense, type ReactNode } from "react";
import { getTranslations } from "next-intl/server";
import { HealthStrip, HealthStripSkeleton } from "@/app/_components/health-strip";
import { LocaleSwitch } from "@/app/_components/locale-switch";
import { NavLinks } from "@/app/_components/nav-links";
import { SignOutButton } from "@/app/_components/sign-out-button";
import { can } from "@/lib/auth/roles";
import { requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { REQUEST_PATH_HEADER } from "@/lib/http/request-path";
import { organizationBase, splitOrganizationPath } from "@/lib/http/organization-path";
import { userOrganizations } from "@/lib/organizations/memberships";
import { runMode } from "@/lib/config/settings";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

export const dynamic = "force-dynamic";

// Every page below also checks the session itself: a layout is not re-run on client navigation.
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const actor = await requireActor();
  const [t, roles, endpoints, alerts, organizations, asked] = await Promise.all([
    getTranslations("nav"),
    getTranslations("roles"),
    getTranslations("endpoints"),
    getTranslations("alerts"),
    db().then((client) => userOrganizations(client, actor.id)),
    headers().then((list) => list.get(REQUEST_PATH_HEADER) ?? "/orders"),
  ]);
  // The section the user is in (`/orders` of `/o/acme/orders/A-1001`): what the switcher opens in another organization.
  const section = `/${splitOrganizationPath(asked.split("?")[0]).path.split("/")[1] || "orders"}`;
  const base = organizationBase(actor.organizationSlug ?? "default");
  const links = [
    { href: "/orders", text: t("orders") },
    { href: "/dead-letters", text: t("deadLetters") },
    { href: "/decisions", text: t("decisions") },
    { href: "/reconciliation", text: t("reconciliation") },
    { href: "/review", text: t("review") },
    ...(can(actor.role, "endpoints.read") ? [{ href: "/endpoints", text: endpoints("nav") }] : []),
    ...(can(actor.role, "alerts.read") ? [{ href: "/alerts", text: alerts("nav") }] : []),
    // The Users page is the default organization's (lib/auth/users.ts); every organization has its audit log.
    ...(can(actor.role, "users.manage") ? [...(actor.organizationId === DEFAULT_ORGANIZATION.id ? [{ href: "/admin/users", text: t("users") }] : []), { href: "/admin/audit", text: t("audit") }] : []),
  ];
  return (
    <OrganizationBaseProvider base={base}>
      <a href="#main" className="skip-link">
        {t("skip")}
      </a>
      {/* Two rows for every role: brand and pages, then who is signed in and their controls. */}
      <header className="topbar" data-testid="topbar">
        <div className="topbar-main">
          <Link href="/orders" className="brand">
            Acredita
          </Link>
          <NavLinks label={t("label")} links={links} />
        </div>
        <div className="topbar-account" data-testid="topbar-account">
          <OrganizationSwitcher current={actor.organizationId} organizations={organizations} section={section} />
          <span className="user" data-testid="signed-in-as" data-role={actor.role}>
            {t("signedInAs", { email: actor.email, role: roles(actor.role) })}
          </span>
          <Link href="/account/password" className="button secondary">
            {t("password")}
          </Link>
          <LocaleSwitch />
          <SignOutButton label={t("signOut")} />
        </div>
      </header>
      {runMode() === "demo" ? (
        <p className="demo-banner" role="alert" data-testid="demo-banner">
          {/* On a phone the full sentence took half the first screen: the short one says the same danger. */}
          <span className="demo-long">{t("demoMode")}</span>
          <span className="demo-short">{t("demoModeShort")}</span>
        </p>
      ) : null}
      <Suspense fallback={<HealthStripSkeleton />}>
        <HealthStrip />
      </Suspense>
      <main id="main">{children}</main>
    </OrganizationBaseProvider>
  );
}
