"use server";
// Language switch: stores the chosen locale in a cookie that wins over Accept-Language (lib/i18n).
import { cookies } from "next/headers";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { LOCALE_COOKIE, LOCALES } from "@/lib/i18n/locales";

const localeFormSchema = z.object({ locale: z.enum(LOCALES) });

export async function setLocaleAction(formData: FormData): Promise<void> {
  const parsed = localeFormSchema.safeParse({ locale: formData.get("locale") });
  if (!parsed.success) return;
  (await cookies()).set(LOCALE_COOKIE, parsed.data.locale, { path: "/", sameSite: "lax", httpOnly: true, maxAge: 365 * 24 * 60 * 60 });
  revalidatePath("/", "layout");
}
