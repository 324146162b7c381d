"use client";
import "./globals.css";

// Last resort when the root layout itself fails (the messages may not have loaded): its own <html>,
// both languages, no error text (it may hold internals), the digest to find the server log line.
export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body>
        <main id="main" className="signin" role="alert">
          <p className="problem-code mono">500</p>
          <h1>Something went wrong · Algo salió mal</h1>
          <p>Try again; if it persists, check the server logs.</p>
          <p lang="es-AR">Probá de nuevo; si sigue, revisá los logs del servidor.</p>
          {error.digest ? <p className="mono">digest {error.digest}</p> : null}
          <p>
            <button type="button" onClick={reset}>
              Try again · Probá de nuevo
            </button>
          </p>
        </main>
      </body>
    </html>
  );
}
