import Foundation
import Hummingbird
import OakModels
import OakStore

/// `/health` (liveness) and `/health/ready` (the database answers), mounted at the root and under `/api/v1`.
struct HealthController {
    let repository: any CatalogRepository

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.get("health", use: live)
        group.get("health/ready", use: ready)
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
