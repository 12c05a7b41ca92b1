/** The judge's and the raters' quality scale: integers 1..5, fixed even when a category is unused. */
export const LIKERT_CATEGORIES = [1, 2, 3, 4, 5] as const;
