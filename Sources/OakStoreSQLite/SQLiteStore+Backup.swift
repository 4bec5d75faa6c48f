import Foundation
import GRDB
import OakModels
import OakSQLite
import OakStore

extension SQLiteStore: MaintenanceRepository, BackupRepository {
    /// Writes a consistent snapshot of the live database (`VACUUM INTO`) into `directory`, then keeps
    /// only the newest `keep` backups there. Restoring is copying the file back and starting on it.
    public func backup(into directory: String, keep: Int) async throws -> BackupInfo {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let timestamp = clock()
        // Named and written under the writer's lock, so concurrent backups cannot pick the same name; a name
        // already taken (two backups in one millisecond) moves on by a millisecond, keeping names in time order.
        let (filename, path) = try await pool.writeWithoutTransaction { db in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMdd-HHmmss-SSS"
            var nameTime = timestamp
            while true {
                let filename = "oak-\(formatter.string(from: nameTime)).db"
                let path = URL(fileURLWithPath: directory).appendingPathComponent(filename).path
                if !FileManager.default.fileExists(atPath: path) {
                    try db.execute(cachedSQL: "VACUUM INTO ?", arguments: [path])
                    return (filename, path)
                }
                nameTime += 0.001
            }
        }
        // A backup is a history of its own once restored (`CopyIdentity`).
        let copy = try DatabaseQueue(path: path)
        try await copy.writeWithoutTransaction { db in try db.execute(sql: CopyIdentity.markSQL) }
        try copy.close()
        // `VACUUM INTO` does not sync the file it writes. It is synced (with its directory entry) before older
        // backups are let go, so a power loss just after cannot leave a torn newest backup and fewer good ones.
        for synced in [path, directory] {
            guard let handle = FileHandle(forReadingAtPath: synced) else { continue }
            try handle.synchronize()
            try handle.close()
        }
        try Self.pruneBackups(in: directory, keep: keep)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        return BackupInfo(filename: filename, size: size, timestamp: timestamp)
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
