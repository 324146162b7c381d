import { Fragment } from "react";

/**
 * `text` (an event type, a secret label, ...) that may wrap after a ".", "_" or "-" and nowhere inside
 * a word: a break opportunity (<wbr>) after each, and `overflow-wrap: break-word` (globals.css
 * `.break-after`) so its column sizes to its longest part instead of breaking mid-word.
 */
export function BreakAfter({ text, className, testId }: { text: string; className?: string; testId?: string }) {
  return (
    <span className={["break-after", className].filter(Boolean).join(" ")} data-testid={testId}>
      {text.split(/(?<=[._-])/).map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
