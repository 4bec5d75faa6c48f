import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import OakModels
import OakStore
import OakStoreKit
import OakWeb

/// Builds the HTTP application serving the v1 API from `store`, with backups when the store can write them
/// (`ServedStore.backups`).
/// - Parameters:
///   - rateLimiter: the buckets to use (tests inject one with a fast clock); by default a new one.
///   - logger: where request logs go; by default lines on standard error (`LineLogHandler`).
public func buildApplication(
    configuration: ServerConfiguration, store: any ServedStore, rateLimiter: RateLimiter? = nil, logger: Logger? = nil
) -> some ApplicationProtocol {
    var logger = logger ?? Logger(label: "oak.server", factory: LineLogHandler.init(label:))
    logger.logLevel = configuration.logLevel
    let shared = SharedServerState(configuration: configuration, store: store, rateLimiter: rateLimiter, responseCache: ResponseCache())
    let responseCache = shared.responseCache
    if let problem = shared.webPagesProblem {
        logger.error("The web pages could not be loaded from the program's resources (\(problem)): serving the JSON API only")
    }
    let router = buildRouter(configuration: configuration, store: store, shared: shared)
    let cachedReads = CachedReads(
        cache: responseCache, store: store, speciesRecords: shared.speciesRecords, finisher: shared.finisher, logger: logger)
    let requestTimeout = TimeAmount.seconds(configuration.requestTimeout.components.seconds)
    let connectionLogger = logger
    let http1 = HTTP1Channel.Configuration(
        additionalChannelHandlers: [RequestDeadlineHandler(timeout: requestTimeout, logger: connectionLogger)],
        idleTimeout: .seconds(configuration.idleTimeout.components.seconds))
    return Application(
        router: router,
        server: HTTPServerBuilder { responder in
            CachedReadsHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: http1), reads: cachedReads)
        },
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: ServerConfiguration.serverName,
            availableConnectionsDelegate: ConnectionCap(limit: configuration.maxConnections, logger: logger)),
        services: [
            MaintenanceService(
                store: store, backupStore: store.backups, retention: configuration.tombstoneRetention, backups: configuration.backups,
                logger: logger),
            IdleExportRelease(responseCache: responseCache, store: store, idle: configuration.exportIdleRelease, logger: logger),
        ],
        logger: logger)
}

/// Builds the router: middleware first (so it also wraps unknown routes), then one controller per resource.
public func buildRouter(
    configuration: ServerConfiguration, store: any ServedStore, rateLimiter: RateLimiter? = nil
) -> Router<OakRequestContext> {
    buildRouter(configuration: configuration, store: store, rateLimiter: rateLimiter, responseCache: ResponseCache())
}

func buildRouter(
    configuration: ServerConfiguration, store: any ServedStore, rateLimiter: RateLimiter?, responseCache: ResponseCache
) -> Router<OakRequestContext> {
    buildRouter(
        configuration: configuration, store: store,
        shared: SharedServerState(configuration: configuration, store: store, rateLimiter: rateLimiter, responseCache: responseCache))
}

/// What the router and the fast path (`CachedReads`) share: one response cache, one set of species records and the
/// reads of the change log that keep both current, and one response finisher (with its metrics and rate limiter) per
/// application.
struct SharedServerState {
    let responseCache: ResponseCache
    let speciesRecords: SpeciesRecords
    let changeReads: ChangeReads
    /// What every answer gets on its way out, routed or not: common fields, log line, metrics, rate limit.
    let finisher: ResponseFinisher
    /// The pages' templates and files, loaded once; nil with `--no-web`, or when they could not be loaded
    /// (`webPagesProblem` says why: the program's resources are incomplete).
    let webPages: WebPages?
    let webPagesProblem: String?

    var metrics: ServerMetrics { finisher.metrics }

    init(configuration: ServerConfiguration, store: any CompendiumStore, rateLimiter: RateLimiter?, responseCache: ResponseCache) {
        self.responseCache = responseCache
        changeReads = ChangeReads(store.changes(after:))
        speciesRecords = SpeciesRecords(store: store, changeReads: changeReads)
        finisher = ResponseFinisher(
            requestLog: RequestLog(
                metrics: ServerMetrics(pool: { store.poolStatus }, cachedBytes: { responseCache.bytesHeld }), trustProxy: configuration.trustProxy),
            rateLimit: configuration.rateLimits.map { limits in
                RateLimit(limiter: rateLimiter ?? RateLimiter(maxClients: limits.maxClients), limits: limits)
            },
            cors: CORSPolicy(allowedOrigins: configuration.corsOrigins))
        if configuration.web {
            do {
                (webPages, webPagesProblem) = (try WebPages(), nil)
            } catch {
                (webPages, webPagesProblem) = (nil, "\(error)")
            }
        } else {
            (webPages, webPagesProblem) = (nil, nil)
        }
    }
}

private func buildRouter(configuration: ServerConfiguration, store: any ServedStore, shared: SharedServerState) -> Router<OakRequestContext> {
    let speciesRecords = shared.speciesRecords
    let metrics = shared.metrics
    let pullPages = PullReadAhead(store: store, metrics: metrics)
    let routes = RouteIndex()
    let router = Router(context: OakRequestContext.self, options: [.autoGenerateHeadEndpoints])
    router.add(middleware: FinishingMiddleware(finisher: shared.finisher, errors: ErrorResponses(routes: routes)))
    router.add(middleware: ResponseCacheMiddleware(cache: shared.responseCache, store: store, changeReads: shared.changeReads))
    router.add(middleware: CompressionMiddleware())
    router.add(middleware: RequestLimitsMiddleware(maxBodySize: configuration.maxBodySize))
    addRoutes(to: router, configuration, store, metrics, speciesRecords, pullPages, shared.webPages)
    routes.learn(router.routes.map { ($0.method.rawValue, $0.path.description) })
    return router
}

/// Registers every controller; each resource's writes need that resource's ability. Each controller registers its
/// routes from the catalogue (`APIRoute`), whole paths on a group with no path of its own.
private func addRoutes(
    to router: Router<OakRequestContext>, _ configuration: ServerConfiguration, _ store: any ServedStore, _ metrics: ServerMetrics,
    _ speciesRecords: SpeciesRecords, _ pullPages: PullReadAhead, _ webPages: WebPages?
) {
    let authenticator = Authenticator(ownerKey: configuration.ownerKey, tokens: store)
    func writes(_ group: RouterGroup<OakRequestContext>, _ ability: Ability) -> RouterGroup<OakRequestContext> {
        group.add(middleware: WriteAccessMiddleware(ability: ability, authenticator: authenticator))
    }
    let viewers = WebViewers(sessions: WebSessions(ownerKey: configuration.ownerKey), tokens: store, trustProxy: configuration.trustProxy)
    let web = webPages.map { WebController(store: store, pages: $0, viewers: viewers) }
    if let web {
        web.addRoutes(to: router.group(""))
        WebSessionController(pages: web.pages, viewers: viewers, authenticator: authenticator).addRoutes(to: router.group(""))
        WebEditController(store: store, pages: web.pages, viewers: viewers, web: web).addRoutes(to: router.group(""))
        WebEventsController(store: store).addRoutes(to: router.group(""))
    }
    IndexController(web: web).addRoutes(to: router.group(""))
    HealthController(repository: store).addRoutes(to: router.group(""))
    MetricsController(metrics: metrics).addRoutes(to: router.group(""))
    SpeciesController(repository: store, records: speciesRecords).addRoutes(to: writes(router.group(""), .speciesWrite))
    SpeciesSourcesController(repository: store).addRoutes(to: writes(router.group(""), .speciesWrite))
    TaxaController(repository: store).addRoutes(to: writes(router.group(""), .taxaWrite))
    SourcesController(repository: store).addRoutes(to: writes(router.group(""), .sourcesWrite))
    CatalogController(repository: store).addRoutes(to: router.group(""))
    NotesController(repository: store).addRoutes(to: writes(router.group(""), .notesWrite))
    SyncController(repository: store, pages: pullPages).addRoutes(to: writes(router.group(""), .notesWrite))
    AuthController(authenticator: authenticator).addRoutes(to: router.group(""))
    BackupController(repository: store.backups, settings: configuration.backups).addRoutes(to: writes(router.group(""), .admin))
    OpenAPIController().addRoutes(to: router.group(""))
}
