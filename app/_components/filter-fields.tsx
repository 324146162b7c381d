// The fields of the dashboard's forms (the filters' GET forms, where the URL is the state, and the
// upload form): a labelled select whose first option is empty ("any", "detect"), and a labelled input.
// No state of their own: usable on the server and in client components.
import type { InputHTMLAttributes } from "react";

/** One option of a {@link FilterSelect}: the URL value and what the reader sees. */
export interface FilterOption {
  value: string;
  label: string;
}

/** A labelled `<select name>` with an empty "any" option first, then `options`; `value` is selected. */
export function FilterSelect({ id, name, label, anyLabel, value, options }: { id: string; name: string; label: string; anyLabel: string; value: string | undefined; options: FilterOption[] }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue={value ?? ""}>
        <option value="">{anyLabel}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A labelled `<input name>` showing `value`; other attributes (type, pattern, maxLength) pass through. */
export function FilterInput({ id, label, value, ...input }: { id: string; label: string; value: string | number | undefined } & Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "defaultValue" | "value">) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} defaultValue={value ?? ""} {...input} />
    </div>
  );
}

/** Options whose label is the value itself (emails, currency codes, provider names). */
export function verbatimOptions(values: readonly string[]): FilterOption[] {
  return values.map((value) => ({ value, label: value }));
}
