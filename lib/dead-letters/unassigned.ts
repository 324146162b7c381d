/**
 * The word that stands for "no owner" where a dead letter's owner is chosen (the owner filter, the
 * hand-over form): an owner is an e-mail, never this word. Its own module so the browser's table can
 * import it without the list's database code.
 */
export const UNASSIGNED = "none";
