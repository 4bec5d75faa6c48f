import Foundation
import Hummingbird
import OakModels
import OakStore

/// `POST /api/v1/backup` (admin): a consistent snapshot of the live database, when the server owns the
/// database file (SQLite); a database server (PostgreSQL) answers 409 and names its own tools.
struct BackupController {
    let repository: (any BackupRepository)?
    let settings: BackupSettings

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.backup, use: backup)
    }

    @Sendable func backup(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<BackupInfo> {
        guard let repository else { throw Self.notOwned }
        let info = try await repository.backup(into: settings.directory, keep: settings.keep)
        context.logger.info("Backup written", metadata: ["file": .string(info.filename), "bytes": .stringConvertible(info.size)])
        return JSONResponse(status: .created, body: info)
    }

    static let notOwned = OakError(
        .conflict, "This server's database is PostgreSQL, which the server does not back up: use pg_dump or the database's own backups")
}
