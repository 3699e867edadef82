import PostgresNIO
import TollgatePostgres

/// Searches every text, JSON and byte column of every table of a PostgreSQL database for a text
/// (the conformance suite's `ConformanceDatabase.columnsHolding`): the columns come from
/// `information_schema.columns` of the current schema, so a table a later migration adds is
/// searched too; a byte column (inbox payloads) is searched for the text's UTF-8 bytes.
enum PostgresColumnSearch {
  static func columns(holding text: String, in database: PostgresTollgateDatabase) async throws -> [String] {
    let columns = try await database.query(
      """
      SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns
      WHERE table_schema = current_schema()
        AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea')
      ORDER BY table_name, column_name
      """
    ).map { try $0.decode((String, String, String).self) }
    var found: [String] = []
    for (table, column, type) in columns {
      let test =
        type == "bytea"
        ? "position(convert_to($1, 'UTF8') in \"\(column)\") > 0" : "strpos(\"\(column)\"::text, $1) > 0"
      var binds = PostgresBindings()
      binds.append(text)
      let rows = try await database.query(
        PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM \"\(table)\" WHERE \(test)", binds: binds))
      if try (rows.first?.decode(Int64.self) ?? 0) > 0 { found.append("\(table).\(column)") }
    }
    return found
  }
}
