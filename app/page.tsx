export default function Home() {
  return (
    <main>
      <h1>Acredita</h1>
      <p>Payment webhooks verified over raw bytes, stored once, credited once.</p>
    </main>
  );
}
