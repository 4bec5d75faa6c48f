import HTTPTypes
import Hummingbird
import OakModels

extension RouterMethods {
    /// Registers `handler` for a route of the catalogue (`APIRoute`), at its method and path template (Hummingbird
    /// reads `{name}` as a parameter, as it reads `:name`). Every route is registered this way, so none is served
    /// without being described; register on a group without a path of its own (`router.group("")`), since the
    /// route's path is whole.
    @discardableResult
    func on(_ route: APIRoute, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) -> Self {
        on(RouterPath(route.path), method: route.method.httpMethod, use: handler)
    }
}

extension APIRoute.Method {
    /// The method as HTTPTypes names it.
    var httpMethod: HTTPRequest.Method {
        switch self {
        case .get: .get
        case .post: .post
        case .put: .put
        case .patch: .patch
        case .delete: .delete
        }
    }
}
