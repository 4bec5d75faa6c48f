import GRDB

// Hot queries run from statements prepared once per connection (`cachedSQL:`); the SQL text is the key.
extension Row {
    public static func fetchOne(_ db: Database, cachedSQL sql: String, arguments: StatementArguments = []) throws -> Row? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }

    public static func fetchAll(_ db: Database, cachedSQL sql: String, arguments: StatementArguments = []) throws -> [Row] {
        try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }
}

extension Database {
    /// Values made from the rows of a query while the statement is on each row: there GRDB finds a column by
    /// name with one dictionary lookup, while in a copied row (`Row.fetchAll`, `Row.fetchOne`) every lookup
    /// lowercases and compares each column name.
    public func fetchAll<Value>(cachedSQL sql: String, arguments: StatementArguments = [], _ make: (Row) throws -> Value) throws -> [Value] {
        let rows = try Row.fetchCursor(cachedStatement(sql: sql), arguments: arguments)
        var values: [Value] = []
        while let row = try rows.next() { values.append(try make(row)) }
        return values
    }

    public func fetchOne<Value>(cachedSQL sql: String, arguments: StatementArguments = [], _ make: (Row) throws -> Value) throws -> Value? {
        let rows = try Row.fetchCursor(cachedStatement(sql: sql), arguments: arguments)
        // The cursor resets the statement when it goes, so it must outlive `make`.
        return try withExtendedLifetime(rows) { try rows.next().map(make) }
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    public static func fetchOne(_ db: Database, cachedSQL sql: String, arguments: StatementArguments = []) throws -> Self? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }

    public static func fetchAll(_ db: Database, cachedSQL sql: String, arguments: StatementArguments = []) throws -> [Self] {
        try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }
}

extension Database {
    public func execute(cachedSQL sql: String, arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}
