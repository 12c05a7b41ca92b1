/**
 * CSV cells a spreadsheet opens safely: a researcher opens identities.csv for payment, and raters open
 * annotation templates, so a participant-controlled value must never run as a formula there.
 */

/**
 * First characters that make a spreadsheet (Excel, LibreOffice, Sheets) read a cell as a formula (OWASP CSV
 * injection), plus the quote itself, so that dropping one leading quote always gives the raw value back.
 */
const FORMULA_START = /^[=+\-@\t\r']/;
/** A number as csvCell writes one (decimal or exponent form): what a numeric column may hold untouched. */
const NUMBER_TEXT = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * Neutralises a cell a spreadsheet would run as a formula, as OWASP recommends: a leading `'` makes it
 * text ("=HYPERLINK(…)" → "'=HYPERLINK(…)"). In a numeric column a real number ("-3", "+1.5e3") is kept as
 * it is, so it stays a number for every reader; anything else starting with =, +, -, @, tab, CR or ' gets the
 * quote, whatever the column.
 */
export function formulaSafeCell(cell: string | number, numericColumn: boolean): string | number {
  if (typeof cell === 'number') return cell;
  if (!FORMULA_START.test(cell)) return cell;
  if (numericColumn && NUMBER_TEXT.test(cell)) return cell;
  return `'${cell}`;
}
