import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore
import OakStoreKit

extension SQLiteStore: ServedStore {
    /// The server writes the backups of the database file it owns.
    public var backups: (any BackupRepository)? { self }

    /// Nothing: the file's path, which the server names, is all there is to set.
    public func startupSummary() async throws -> String? { nil }
}

extension SQLiteStore: MaintenanceRepository, BackupRepository {
    /// Writes a consistent snapshot of the live database (SQLite's online backup, page by page) into `directory`,
    /// then keeps only the newest `keep` backups there. Restoring is copying the file back and starting on it.
    public func backup(into directory: String, keep: Int) async throws -> BackupInfo {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let timestamp = clock()
        // Named and written under the writer's lock, so concurrent backups cannot pick the same name; a name
        // already taken (two backups in one millisecond) moves on by a millisecond, keeping names in time order.
        let (filename, path) = try await pool.writeWithoutTransaction { db in
            var nameTime = timestamp
            while true {
                let filename = Self.backupName(at: nameTime)
                let path = URL(fileURLWithPath: directory).appendingPathComponent(filename).path
                if !FileManager.default.fileExists(atPath: path) {
                    let copy = try DatabaseQueue(path: path)
                    try copy.writeWithoutTransaction { copy in
                        try db.backup(to: copy)
                        // A backup is a history of its own once restored (`CopyIdentity`).
                        try copy.execute(sql: CopyIdentity.markSQL)
                    }
                    try copy.close()
                    return (filename, path)
                }
                nameTime += 0.001
            }
        }
        // The file and its directory entry are synced before older backups are let go, so a power loss just after
        // cannot leave a torn newest backup and fewer good ones.
        for synced in [path, directory] {
            guard let handle = FileHandle(forReadingAtPath: synced) else { continue }
            try handle.synchronize()
            try handle.close()
        }
        try Self.pruneBackups(in: directory, keep: keep)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        return BackupInfo(filename: filename, size: size, timestamp: timestamp)
    }

    /// `oak-20261127-204409-123.db`: the time in UTC to the millisecond, so names sort by time; the digits of
    /// the wire's time (`2026-11-27T20:44:09.123Z`).
    static func backupName(at time: Date) -> String {
        let wire = WireTime.formatPrecise(time).utf8
        let digits = { (range: Range<Int>) in
            String(decoding: wire.dropFirst(range.lowerBound).prefix(range.count).filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }, as: UTF8.self)
        }
        return "oak-\(digits(0..<10))-\(digits(11..<19))-\(digits(20..<23)).db"
    }

    /// Deletes all but the newest `keep` backups (by name, which sorts by time).
    static func pruneBackups(in directory: String, keep: Int) throws {
        let backups = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("oak-") && $0.hasSuffix(".db") }.sorted()
        for name in backups.dropLast(max(keep, 1)) {
            try FileManager.default.removeItem(atPath: URL(fileURLWithPath: directory).appendingPathComponent(name).path)
        }
    }
}
