// npm run create-user -- --email a@b.c --name "Ana" --role admin   (password read from ACREDITA_NEW_PASSWORD
// or prompted on stdin, never from argv, so it does not land in the shell history or `ps`).
import { parseArgs } from "node:util";
import { createInterface } from "node:readline/promises";
import { newUserSchema } from "@/lib/auth/users";
import { createUserWithPassword } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db/client";

async function readPassword(): Promise<string> {
  if (process.env.ACREDITA_NEW_PASSWORD) return process.env.ACREDITA_NEW_PASSWORD;
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await rl.question("Password (12-128 characters, not a common one): ");
  } finally {
    rl.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { email: { type: "string" }, name: { type: "string" }, role: { type: "string", default: "merchant" } } });
  const parsed = newUserSchema.safeParse({ email: values.email, name: values.name ?? values.email, role: values.role, password: await readPassword() });
  if (!parsed.success) {
    console.error(`create-user: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
    process.exit(2);
  }
  const result = await createUserWithPassword(await db(), parsed.data);
  await closeDb();
  if (result.kind === "exists") {
    console.error(`create-user: ${parsed.data.email} already exists`);
    process.exit(1);
  }
  console.log(`created ${result.user.email} (${result.user.role})`);
}

void main();
