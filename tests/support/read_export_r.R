# Reads the CSV files of a Tandem export with base R's read.csv, using the column types of its
# datapackage.json (the codebook's types). Needs jsonlite only to read datapackage.json and print.
#
#   Rscript tests/support/read_export_r.R <export-dir>
#
# Prints, per CSV file: row count, the class of each column, missing values per column, and the first
# value of each datetime column (ms since the epoch, UTC).
args <- commandArgs(trailingOnly = TRUE)
folder <- args[[1]]
pkg <- jsonlite::fromJSON(file.path(folder, "datapackage.json"), simplifyVector = FALSE)
classes <- c(integer = "integer", number = "numeric", boolean = "logical", string = "character", datetime = "character")
out <- list()
for (r in pkg$resources) {
  if (r$format != "csv") next
  fields <- r$schema$fields
  names <- vapply(fields, function(f) f$name, "")
  types <- vapply(fields, function(f) f$type, "")
  col_classes <- unname(ifelse(types %in% names(classes), classes[types], "character"))
  # Only an empty cell is missing (the export's missingValues is [""]); booleans are true/false.
  df <- read.csv(file.path(folder, r$path), colClasses = col_classes, na.strings = "", encoding = "UTF-8", check.names = FALSE)
  first <- list()
  for (i in seq_along(fields)) {
    if (types[[i]] == "datetime") {
      df[[names[[i]]]] <- as.POSIXct(df[[names[[i]]]], format = "%Y-%m-%dT%H:%M:%OSZ", tz = "UTC")
      v <- df[[names[[i]]]][!is.na(df[[names[[i]]]])]
      # as ms since the epoch: format(..., "%OS3") truncates the binary fraction (….074 prints as .073)
      if (length(v) > 0) first[[names[[i]]]] <- round(as.numeric(v[[1]]) * 1000)
    }
  }
  out[[r$name]] <- list(
    rows = nrow(df),
    columns = as.list(colnames(df)),
    classes = lapply(df, function(col) class(col)[[1]]),
    missing = lapply(df, function(col) sum(is.na(col))),
    firstDatetime = first
  )
}
cat(jsonlite::toJSON(out, auto_unbox = TRUE))
