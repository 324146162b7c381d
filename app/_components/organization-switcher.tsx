import { getTranslations } from "next-intl/server";
import { organizationBase } from "@/lib/http/organization-path";
import type { UserOrganization } from "@/lib/organizations/memberships";

/**
 * The organization the dashboard shows, and for a user of several a menu of the others: each link opens
 * the same section in that organization (`/o/<slug>/...`; the default organization's at the short
 * address). A plain <details> menu: it works before the page's JavaScript runs.
 */
export async function OrganizationSwitcher({ current, organizations, section }: { current: string; organizations: UserOrganization[]; section: string }) {
  const t = await getTranslations("nav");
  const shown = organizations.find((organization) => organization.id === current);
  if (!shown || organizations.length < 2) return null;
  return (
    <details className="org-switcher" data-testid="org-switcher">
      <summary aria-label={t("switchOrganization")} data-organization={shown.slug}>
        {t("organization", { name: shown.name })}
      </summary>
      <ul aria-label={t("organizationsLabel")}>
        {organizations.map((organization) => (
          <li key={organization.id}>
            <a href={`${organizationBase(organization.slug)}${section}`} aria-current={organization.id === current ? "true" : undefined} data-organization={organization.slug}>
              {organization.name}
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
}
