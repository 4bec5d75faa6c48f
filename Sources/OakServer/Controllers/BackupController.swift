import Foundation
import Hummingbird
import OakModels
import OakStore

/// `POST /api/v1/backup` (admin): a consistent snapshot of the live database.
struct BackupController {
    let repository: any MaintenanceRepository
    let settings: BackupSettings

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.post(use: backup)
    }

    @Sendable func backup(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<BackupInfo> {
        let info = try await repository.backup(into: settings.directory, keep: settings.keep)
        context.logger.info("Backup written", metadata: ["file": .string(info.filename), "bytes": .stringConvertible(info.size)])
        return JSONResponse(status: .created, body: info)
    }
}
