import Foundation
import HummingbirdTesting
import Logging
import OakModels
import OakStore
import OakTestSupport
import Testing

@testable import OakServer

/// Backups are the SQLite store's: the server owns its file. On PostgreSQL the route names the database's tools.
@Suite("Backups")
struct BackupTests {
    /// A backup's name is its time in UTC to the millisecond, as Foundation formats it.
    static let nameFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss-SSS"
        return formatter
    }()

    @Test("POST /backup (admin) writes a consistent snapshot named by its UTC time and returns filename, size and timestamp")
    func backupRoute() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        env.clock.advance(12.345)
        try await env.test { client in
            let response = try await client.send(.post, "/api/v1/backup")
            #expect(response.status == .created)
            let body = try response.object()
            let filename = try #require(body["filename"] as? String)
            #expect(filename == "oak-\(Self.nameFormatter.string(from: env.clock.now)).db")
            #expect((body["size"] as? Int ?? 0) > 0)
            #expect(body["timestamp"] as? String == wire(env.clock.now))
            let path = env.directory.appendingPathComponent("backups/\(filename)").path
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("only the newest N backups are kept")
    func keepsNewest() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        let directory = env.directory.appendingPathComponent("kept").path
        var names: [String] = []
        for _ in 0..<5 {
            names.append(try await env.sqlite.backup(into: directory, keep: 3).filename)
            env.clock.advance(1)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == Array(names.suffix(3)))
    }

    @Test("backups asked for in the same millisecond, even at once, all succeed with names in the order they were written")
    func sameMillisecond() async throws {
        let env = try await TestEnvironment(backend: .sqlite)  // its clock stands still
        let directory = env.directory.appendingPathComponent("burst").path
        async let first = env.sqlite.backup(into: directory, keep: 10)
        async let second = env.sqlite.backup(into: directory, keep: 10)
        let third = try await env.sqlite.backup(into: directory, keep: 10)
        let names = try await [first.filename, second.filename, third.filename]
        #expect(Set(names).count == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == names.sorted())
        let pruned = try await env.sqlite.backup(into: directory, keep: 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted().last == pruned.filename)
    }

    @Test("a restored backup serves the same data")
    func restore() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        let backupPath = try await env.test { client -> String in
            try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba", "fields": {"bark": "pale"}}"#)
            try await client.send(.put, "/api/v1/species/robur", json: #"{"conservation_status": "NT"}"#)
            let name = try #require(try await client.send(.post, "/api/v1/backup").object()["filename"] as? String)
            return env.directory.appendingPathComponent("backups/\(name)").path
        }
        let original = try await env.test { client in
            (try await client.send(.get, "/api/v1/export").headers[.eTag], String(buffer: try await client.send(.get, "/api/v1/notes").body))
        }
        // Restoring: start the server on the backup file.
        let restored = try await TestEnvironment(path: backupPath)
        let served = try await restored.test { client in
            (try await client.send(.get, "/api/v1/export").headers[.eTag], String(buffer: try await client.send(.get, "/api/v1/notes").body))
        }
        #expect(served.0 == original.0)
        #expect(served.1 == original.1)
    }

    @Test("on PostgreSQL, POST /backup answers 409 naming pg_dump, and writes nothing", .needsPostgres)
    func postgresBackupRefused() async throws {
        let env = try await TestEnvironment(backend: .postgres)
        try await env.test { client in
            let response = try await client.send(.post, "/api/v1/backup")
            #expect(response.status == .conflict)
            #expect(try response.error().message.contains("pg_dump"))
        }
        #expect(!FileManager.default.fileExists(atPath: env.directory.appendingPathComponent("backups").path))
    }
}

@Suite("Daily maintenance")
struct DailyMaintenanceTests {
    @Test("the daily work writes a backup, keeps the newest N, and compacts old tombstones")
    func dailyBackupKeepsNewest() async throws {
        let env = try await TestEnvironment(backend: .sqlite)
        let directory = env.directory.appendingPathComponent("daily").path
        let id = try await env.store.createNote(NoteInput(scientificName: "alba")).id
        try await env.store.deleteNote(id: id, expectedVersion: nil)
        let service = MaintenanceService(
            store: env.store, backupStore: try env.sqlite, retention: .seconds(0), backups: BackupSettings(directory: directory, keep: 2, daily: true),
            logger: Logger(label: "test"))
        for _ in 0..<3 {
            await service.dailyWork()
            env.clock.advance(86_400)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 2)
        #expect(try await env.count("SELECT COUNT(*) FROM change_log WHERE op = 'delete'") == 0)
    }

    @Test("compaction keeps a fresh push receipt even when the server's note clock runs far behind: a re-sent push gets the same answer")
    func compactionKeepsFreshReceipts() async throws {
        // The test clock stands months before the real date; receipts and tombstones are stamped by the database's clock.
        let env = try await TestEnvironment()
        let change = PushChange(
            id: UUID(), op: .upsert, baseVersion: nil, updatedAt: env.clock.now,
            note: PushedNote(scientificName: "alba", fields: NoteFields(leaf: "lobed")))
        let first = try await env.store.push([change], cursor: nil)
        let service = MaintenanceService(
            store: env.store, backupStore: nil, retention: .seconds(90 * 86_400), backups: BackupSettings(directory: env.directory.path, daily: false),
            logger: Logger(label: "test"))
        await service.compactOnce()
        #expect(try await env.count("SELECT COUNT(*) FROM sync_receipts") == 1)
        let again = try await env.store.push([change], cursor: nil)
        #expect(String(buffer: again) == String(buffer: first))
        #expect(String(buffer: again).contains(#""status":"applied""#))
    }
}
