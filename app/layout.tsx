import type { ReactNode } from "react";

export const metadata = { title: "Acredita", description: "Exactly-once payment webhooks" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
