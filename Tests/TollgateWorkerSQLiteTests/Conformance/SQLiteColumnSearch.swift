import TollgateSQLite

/// Searches every column of every table of an SQLite database for a text (the conformance
/// suite's `ConformanceDatabase.columnsHolding`): the tables come from `sqlite_master` and their
/// columns from `pragma_table_info`, so a table a later migration adds is searched too. Every
/// value is compared as text (`CAST … AS TEXT`: blobs such as inbox payloads included).
enum SQLiteColumnSearch {
  static func columns(holding text: String, path: String) throws -> [String] {
    let db = try Connection(path: path)
    let tables = try db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").rows([]) {
      $0.string(at: 0)
    }
    var found: [String] = []
    for table in tables {
      let columns = try db.prepare("SELECT name FROM pragma_table_info(?)").rows([.text(table)]) { $0.string(at: 0) }
      for column in columns {
        let hits = try db.prepare(
          "SELECT COUNT(*) FROM \"\(table)\" WHERE instr(CAST(\"\(column)\" AS TEXT), ?) > 0"
        ).rows([.text(text)]) { $0.int64(at: 0) }
        if (hits.first ?? 0) > 0 { found.append("\(table).\(column)") }
      }
    }
    return found
  }
}
