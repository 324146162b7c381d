import Link from "@/app/_components/organization-link";
import type { ReactNode } from "react";

/**
 * The body of the dashboard's error pages (not found, malformed address, server error): a heading,
 * what happened in one sentence, and a way back. `code` is shown as given (404, 400, 500) so a user
 * can quote it; the HTTP status itself is set by whoever renders the page.
 */
export function ProblemPage({ code, title, children, backHref = "/orders", backText }: { code: string; title: string; children: ReactNode; backHref?: string; backText: string }) {
  return (
    <section className="problem" aria-labelledby="problem-h" data-testid="problem" data-code={code}>
      <p className="problem-code mono">{code}</p>
      <h1 id="problem-h">{title}</h1>
      <div className="problem-text">{children}</div>
      <p>
        <Link href={backHref} className="button">
          {backText}
        </Link>
      </p>
    </section>
  );
}
