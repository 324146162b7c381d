"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

/** Main navigation; marks the current section with aria-current="page". */
export function NavLinks({ label, links }: { label: string; links: { href: string; text: string }[] }) {
  const pathname = usePathname();
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
