import { Fragment } from "react";

/** Longest run of characters without a break opportunity: a longer one (an id, a hostile file name) may break inside. */
const LONGEST_PART = 24;

/**
 * `text` (an event type, a secret label, a scope, a file name, an email) that may wrap after a
 * separator (. _ - : @ /) and nowhere inside a word: a break opportunity (<wbr>) after each, and
 * `overflow-wrap: break-word` (globals.css `.break-after`) so its column sizes to its longest part
 * instead of breaking mid-word. A part longer than 24 characters gets an opportunity every 24, so no
 * text can widen a table past its box.
 */
export function BreakAfter({ text, className, testId }: { text: string; className?: string; testId?: string }) {
  const parts = text.split(/(?<=[._\-:@/])/).flatMap((part) => part.match(new RegExp(`.{1,${LONGEST_PART}}`, "gsu")) ?? [part]);
  return (
    <span className={["break-after", className].filter(Boolean).join(" ")} data-testid={testId}>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
