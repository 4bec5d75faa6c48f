import OakSQLiteSettings

/// The process-wide SQLite settings every store on SQLite runs with, server and device (see
/// `oak_sqlite_apply_settings`: applied when the program loads, before SQLite's first connection).
public enum SQLiteSettings {
    /// Applies the settings if SQLite has not started yet; whether they are in force. Called where a store
    /// opens its database, which also keeps the settings linked into every program that opens one.
    @discardableResult
    public static func apply() -> Bool {
        oak_sqlite_apply_settings() == 1
    }
}
