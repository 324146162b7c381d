import { redirect } from "next/navigation";

// The dashboard starts at the orders list; signed-out visitors are sent on to /sign-in from there.
export default function Home() {
  redirect("/orders");
}
