import Foundation
import Hummingbird
import Logging
import OakModels
import OakStore

/// What `oak serve` needs to know to run.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The owner key: every write must present it.
    public var ownerKey: String
    public var logLevel: Logger.Level
    /// How long delete tombstones (and push receipts) are kept; a cursor older than that answers 410.
    public var tombstoneRetention: Duration

    public init(
        host: String = "127.0.0.1", port: Int = 8080, ownerKey: String, logLevel: Logger.Level = .info,
        tombstoneRetention: Duration = .seconds(90 * 86_400)
    ) {
        self.host = host
        self.port = port
        self.ownerKey = ownerKey
        self.logLevel = logLevel
        self.tombstoneRetention = tombstoneRetention
    }
}

/// Builds the HTTP application serving the v1 API from `store`.
public func buildApplication(
    configuration: ServerConfiguration, store: any CompendiumStore
) -> some ApplicationProtocol {
    var logger = Logger(label: "oak.server")
    logger.logLevel = configuration.logLevel
    return Application(
        router: buildRouter(configuration: configuration, store: store),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "oak"),
        services: [MaintenanceService(store: store, retention: configuration.tombstoneRetention, logger: logger)],
        logger: logger)
}

/// Builds the router: middleware first (so it also wraps unknown routes), then one controller per resource.
public func buildRouter(configuration: ServerConfiguration, store: any CompendiumStore) -> Router<OakRequestContext> {
    let router = Router(context: OakRequestContext.self, options: [.autoGenerateHeadEndpoints])
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: AuthMiddleware(ownerKey: configuration.ownerKey))

    let health = HealthController(repository: store)
    health.addRoutes(to: router.group(""))
    let api = router.group("api/v1")
    health.addRoutes(to: api)
    SpeciesController(repository: store).addRoutes(to: api.group("species"))
    SpeciesSourcesController(repository: store).addRoutes(to: api.group("species"))
    TaxaController(repository: store).addRoutes(to: api.group("taxa"))
    SourcesController(repository: store).addRoutes(to: api.group("sources"))
    CatalogController(repository: store).addRoutes(to: api)
    NotesController(repository: store).addRoutes(to: api.group("notes"))
    SyncController(repository: store).addRoutes(to: api.group("sync"))
    return router
}
