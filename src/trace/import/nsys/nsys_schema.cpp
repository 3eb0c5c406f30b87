#include "trace/import/nsys/nsys_schema.h"

namespace trace::nsys {

ExportInfo check_export(const SqliteDb& db) {
  if (!db.has_table("StringIds"))
    db.fail(
        "not an Nsight Systems export: no StringIds table (made by `nsys export --type sqlite`?)");
  // Renamed in schema 3: EXPORT_META_DATA (2.x) became META_DATA_EXPORT.
  const char* meta = db.has_table("META_DATA_EXPORT")   ? "META_DATA_EXPORT"
                     : db.has_table("EXPORT_META_DATA") ? "EXPORT_META_DATA"
                                                        : nullptr;
  if (!meta)
    db.fail(
        "not an Nsight Systems export: no META_DATA_EXPORT (or, before schema 3, EXPORT_META_DATA) "
        "table");
  const auto cols = db.columns(meta);
  if (!cols.count("name") || !cols.count("value"))
    db.fail(std::string("table ") + meta + " has no name and value columns");
  ExportInfo info;
  auto rows = db.query(std::string("SELECT rowid, name, value FROM ") + meta, meta);
  while (rows.next()) {
    const auto name = rows.opt_text(1, "name");
    const auto value = rows.opt_text(2, "value");
    if (!name || !value) continue;
    if (*name == "EXPORT_PRODUCT_VERSION") info.product = std::string(*value);
    if (*name == "EXPORT_SCHEMA_VERSION") info.schema = std::string(*value);
  }
  return info;
}

std::string select_sql(const SqliteDb& db, const char* table, std::initializer_list<Column> columns,
                       const char* where) {
  const auto have = db.columns(table);
  std::string sql = "SELECT rowid";
  for (const Column& c : columns) {
    if (have.count(c.name))
      sql += std::string(", \"") + c.name + "\"";
    else if (!c.required)
      sql += ", NULL";
    else
      db.fail(std::string("table ") + table + " has no column " + c.name +
              " (every Nsight Systems export has it)");
  }
  return sql + " FROM " + table + (*where ? std::string(" WHERE ") + where : std::string());
}

}  // namespace trace::nsys
