"use client";
import Link from "@/app/_components/organization-link";
import { usePathname } from "next/navigation";
import { splitOrganizationPath } from "@/lib/http/organization-path";

/** Main navigation; marks the current section with aria-current="page". */
export function NavLinks({ label, links }: { label: string; links: { href: string; text: string }[] }) {
  // The page's own path, without an organization's prefix (links are written without it: the Link adds it).
  const pathname = splitOrganizationPath(usePathname()).path;
  return (
    <nav aria-label={label}>
      <ul className="nav">
        {links.map((link) => (
          <li key={link.href}>
            <Link href={link.href} aria-current={pathname === link.href || pathname.startsWith(`${link.href}/`) ? "page" : undefined}>
              {link.text}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
