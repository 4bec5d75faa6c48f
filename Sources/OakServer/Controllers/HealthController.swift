import Foundation
import Hummingbird
import OakModels
import OakStore

/// `/health` (liveness) and `/health/ready` (the database answers), mounted at the root and under `/api/v1`.
struct HealthController {
    let repository: any CatalogRepository

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.health, use: live)
        group.on(.healthReady, use: ready)
        group.on(.apiHealth, use: live)
        group.on(.apiHealthReady, use: ready)
    }

    @Sendable func live(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<HealthStatus> {
        JSONResponse(body: HealthStatus(status: "ok", version: .current))
    }

    @Sendable func ready(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<HealthStatus> {
        do {
            try await repository.checkReady()
            return JSONResponse(body: HealthStatus(status: "ready", database: "connected"))
        } catch {
            context.logger.error("Readiness check failed", metadata: ["error": "\(error)"])
            return JSONResponse(
                status: .serviceUnavailable, body: HealthStatus(status: "unavailable", database: "error", error: "database unreachable"))
        }
    }
}
