import Foundation
import OakStore
import OakStoreSQLite

/// A new empty directory in this test process's own folder under the temporary directory, which is removed when the
/// process exits (a run that crashes or is killed leaves it, named `oak-tests-<pid>-…`).
public func temporaryDirectory(_ prefix: String) -> URL {
    let directory = TestRunFolder.url.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// The folder of this test process's temporary directories, made on first use and removed at exit.
private enum TestRunFolder {
    static let url: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "oak-tests-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestRunFolder.url) }
        return folder
    }()
}

/// The path of a database file (not created) in a new temporary directory.
public func temporaryDatabasePath(_ prefix: String, file: String = "oak.db") -> String {
    temporaryDirectory(prefix).appendingPathComponent(file).path
}

/// A new SQLite store on a file of its own, opened as `oak serve` opens a new file: migrated, with the
/// standard sources and (unless `seed` is false) the starter dataset.
public func temporaryStore(_ prefix: String, seed: Bool = true, clock: @escaping @Sendable () -> Date = Date.init) throws -> SQLiteStore {
    try SQLiteStore(path: temporaryDatabasePath(prefix), seedStarterData: seed, clock: clock)
}

/// A server clock the test moves by hand.
public final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        current = start
    }

    public var now: Date { lock.withLock { current } }

    public func advance(_ seconds: TimeInterval) {
        lock.withLock { current += seconds }
    }
}
